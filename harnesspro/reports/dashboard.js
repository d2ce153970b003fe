// Lineage: clicking a node shows its diff, the plan's rationale, predicted and measured
// effect and the verdict (the data is the JSON block #lineage-data).
(function () {
  var details = JSON.parse(document.getElementById('lineage-data').textContent);
  var plot = document.getElementById('lineage');
  var box = document.getElementById('lineage-detail');
  function show(id) {
    var d = details[id];
    if (!d) { return; }
    var lines = [];
    Object.keys(d).forEach(function (k) { if (k !== 'diff') { lines.push(k + ': ' + d[k]); } });
    box.textContent = lines.join('\n') + '\n\n' + d.diff;
  }
  if (plot && plot.on) {
    plot.on('plotly_click', function (ev) {
      var point = ev.points && ev.points[0];
      if (point && point.customdata) { show(point.customdata); }
    });
  }
  var ids = Object.keys(details).sort();
  if (ids.length > 1) { show(ids[ids.length - 1]); }
})();
