"""The application: the ``dokocam`` CLI, the event store and the live web dashboard."""
