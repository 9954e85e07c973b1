"""Importing this module readies every compiled kernel (``webapp.jobs.warm.warm_all``).

The solver fork server imports it (``runner.PRELOAD``), so a solve or a hint starts in a
child that already has the kernels in memory: a 15-puzzle hint's child went from about 0.55 s
to 0.05 s. Nothing else should import it. A failure here must not take the fork server down
(it would stop every solve), so it is logged and the kernels load on first use instead.
"""

import logging

from webapp.jobs.warm import warm_all

try:
    warm_all()
except Exception:  # noqa: BLE001 - any failure: the solvers still work, only slower to start
    logging.getLogger(__name__).exception("readying the compiled kernels failed")
