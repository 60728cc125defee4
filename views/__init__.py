"""The view layer: what a link asks for and how it becomes a figure and its tables.

``views.link`` reads and writes every link parameter; ``views.compose`` (trends), ``views.places`` and
``views.event_study`` turn a view into its figure spec and tables. The page, ``python -m charts`` and the static
site all enter here; the outputs (``charts``) write what these modules compose.
"""
