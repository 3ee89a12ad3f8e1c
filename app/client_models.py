"""The response models the client returns: the API's own (``app/schemas``)."""
