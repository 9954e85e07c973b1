import sys

from webapp.ops.cli import main

sys.exit(main())
