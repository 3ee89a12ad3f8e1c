"""Request and response models of the JSON API."""
