"""Loaders: fetch, parse, validate and write the official and reported figures.

``python -m loaders --help`` lists the commands. See docs/methods.md for the flow of a figure.
"""
