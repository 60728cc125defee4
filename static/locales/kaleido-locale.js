// Loaded after plotly.js and the bundled locales in the headless browser that draws PNG and SVG exports
// (charts/export.py). Kaleido's request parser passes Plotly only the figure's data and layout, never its
// config, so charts/export.py puts the locale in layout.meta.locale and this makes it the default locale for
// the one image being drawn (exports are drawn one at a time, under a lock). English is set the same way, so
// a Spanish image never leaves its locale behind for the next one.
(function () {
  var toImage = Plotly.toImage;
  Plotly.toImage = function (gd, opts) {
    var meta = (gd && gd.layout && gd.layout.meta) || {};
    var locale = (gd && gd.config && gd.config.locale) || meta.locale || "en";
    Plotly.setPlotConfig({ locale: locale });
    return toImage.apply(this, arguments);
  };
})();
