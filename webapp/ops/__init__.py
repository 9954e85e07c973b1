"""Running the app: gunicorn's settings, the cluster launcher and the command line."""
