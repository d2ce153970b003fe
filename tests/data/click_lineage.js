// Test only: click lineage node TARGET as a user does - mouse events at the node's pixel
// position, handled by plotly's own hover and click code - and say what was under the pointer.
window.addEventListener('load', function () {
  var target = TARGET;
  var gd = document.getElementById('lineage');
  gd.scrollIntoView();  // elementFromPoint sees only the viewport
  var x = null, y = null;
  // calcdata holds decoded positions (plotly.py sends arrays base64-encoded)
  gd._fullData.forEach(function (trace, t) {
    (trace.customdata || []).forEach(function (id, i) {
      if (id === target) { x = gd.calcdata[t][i].x; y = gd.calcdata[t][i].y; }
    });
  });
  var xa = gd._fullLayout.xaxis, ya = gd._fullLayout.yaxis;
  var box = gd.getBoundingClientRect();
  var px = box.left + xa._offset + xa.l2p(x), py = box.top + ya._offset + ya.l2p(y);
  var under = document.elementFromPoint(px, py);
  function fire(type) {
    under.dispatchEvent(new MouseEvent(type, {
      bubbles: true, cancelable: true, view: window, clientX: px, clientY: py,
      buttons: type === 'mousedown' ? 1 : 0 }));
  }
  fire('mousemove');
  setTimeout(function () {  // plotly throttles hover: let it settle before the click
    fire('mousedown'); fire('mouseup'); fire('click');
    document.body.setAttribute('data-clicked', target + ' on ' + under.getAttribute('class'));
  }, 200);
});
