"""A Django app for the tests of snowid.django: models keyed by SnowIdField, their admin.

``models.py`` imports nothing from the tests, so the migration test can copy it into a
project of its own.
"""
