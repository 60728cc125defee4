"""Wording shared by every layer: translations (``i18n``), the words for quality flags and refusal reasons,
the methods text, and Markdown-safe plain text. The lowest layer: imports nothing from the other layers, and
every layer, the data side included, may import it."""
