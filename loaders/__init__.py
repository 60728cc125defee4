"""Loaders: fetch, parse, validate and write the official and reported figures.

``python -m loaders --help`` lists the commands. See README.md for the flow of a figure.
"""
