"""Wording shared by every layer: translations (``i18n``), the words for quality flags and refusal reasons,
the methods text, and Markdown-safe plain text. Imports nothing from the other layers."""
