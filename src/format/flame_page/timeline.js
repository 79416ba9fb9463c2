/* The flame graph's timeline (record=y: the samples' times are known; src/format/flame_html.c embeds
   D.timeline): a heat map of the samples in each time slice, one column a slice, the darker the more.
   Dragging across it picks a range of slices: the flame graph is redrawn from the samples of that
   range alone; the "Whole profile" button goes back. tlSetup returns the test hooks' entry points. */
function tlSetup(tl, nNodes, parent, apply) {
  var box = $('timeline'), ns = tl.n, cells = tl.cells;
  var perSlice = new Float64Array(ns), peak = 0;
  /* each node's slices and counts, from the cells: node, pairs, then (slice step, count) pairs */
  var nodeOf = [], slicesOf = [], countsOf = [];
  for (var p = 0; p < cells.length;) {
    var node = cells[p], k = cells[p + 1], s = 0, sl = new Int32Array(k), cn = new Float64Array(k);
    for (var j = 0; j < k; j++) {
      s += cells[p + 2 + 2 * j];
      sl[j] = s; cn[j] = cells[p + 3 + 2 * j];
      perSlice[s] += cn[j];
    }
    nodeOf.push(node); slicesOf.push(sl); countsOf.push(cn);
    p += 2 + 2 * k;
  }
  for (var q = 0; q < ns; q++) if (perSlice[q] > peak) peak = perSlice[q];

  function secs(slice) { return (tl.from + slice * tl.slice) / 1000; }
  function fmt(v) { return v.toFixed(tl.slice < 100 ? 2 : tl.slice < 1000 ? 1 : 0) + ' s'; }

  box.className = 'on';
  var head = document.createElement('div');
  head.id = 'tl-head';
  var info = document.createElement('span');
  info.id = 'tl-info';
  var whole = document.createElement('button');
  whole.type = 'button'; whole.id = 'tl-whole'; whole.textContent = 'Whole profile'; whole.disabled = true;
  head.appendChild(info); head.appendChild(whole);
  var strip = document.createElement('div');
  strip.id = 'tl-strip';
  var canvas = document.createElement('canvas');
  canvas.id = 'tl-heat';
  canvas.setAttribute('data-slices', ns);
  canvas.setAttribute('data-peak', peak);
  var sel = document.createElement('div');
  sel.id = 'tl-sel';
  var axis = document.createElement('div');
  axis.id = 'tl-axis';
  strip.appendChild(canvas); strip.appendChild(sel);
  box.appendChild(head); box.appendChild(strip); box.appendChild(axis);

  /* the heat map: a column per slice, from pale yellow (few samples) to dark red (the most); grey: none */
  var W = Math.max(ns, Math.min(4000, strip.clientWidth || 1000)), H = 40;
  canvas.width = W; canvas.height = H;
  var g = canvas.getContext('2d');
  for (var c = 0; c < ns; c++) {
    var f = peak ? perSlice[c] / peak : 0;
    g.fillStyle = perSlice[c] ? 'hsl(' + (55 - 55 * f).toFixed(0) + ',95%,' + (88 - 58 * f).toFixed(0) + '%)' : '#eee';
    var x0 = Math.floor(c * W / ns), x1 = Math.floor((c + 1) * W / ns);
    g.fillRect(x0, 0, Math.max(1, x1 - x0), H);
  }
  /* the axis: about eight round times, in seconds after the profile's start */
  var span = ns * tl.slice / 1000, steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600];
  var step = steps[steps.length - 1];
  for (var st = 0; st < steps.length; st++) if (span / steps[st] <= 8) { step = steps[st]; break; }
  for (var t = Math.ceil(secs(0) / step) * step; t <= secs(ns); t += step) {
    var lab = document.createElement('span');
    lab.style.left = (100 * (t - secs(0)) / span) + '%';
    lab.textContent = +t.toFixed(2) + ' s';
    axis.appendChild(lab);
  }

  function describeAll() {
    info.textContent = 'Timeline: ' + tl.samples + ' samples with their times, from ' + fmt(secs(0)) + ' to ' +
      fmt(secs(ns)) + ' after the start, in slices of ' + tl.slice + ' ms. Drag across it to see a range.';
    info.removeAttribute('data-from'); info.removeAttribute('data-to'); info.removeAttribute('data-samples');
  }
  /* the flame graph of slices a..b (inclusive): each node's own samples in them, added up its callers */
  function select(a, b) {
    if (a > b) { var tmp = a; a = b; b = tmp; }
    a = Math.max(0, a); b = Math.min(ns - 1, b);
    var tot = new Float64Array(nNodes), sum = 0;
    for (var i = 0; i < nodeOf.length; i++) {
      var sl = slicesOf[i], cn = countsOf[i], v = 0;
      for (var j = 0; j < sl.length; j++) if (sl[j] >= a && sl[j] <= b) v += cn[j];
      tot[nodeOf[i]] += v;
      sum += v;
    }
    for (var n = nNodes - 1; n > 0; n--) tot[parent[n]] += tot[n];
    sel.style.display = 'block';
    sel.style.left = (100 * a / ns) + '%';
    sel.style.width = (100 * (b + 1 - a) / ns) + '%';
    whole.disabled = false;
    info.textContent = 'Showing ' + fmt(secs(a)) + ' to ' + fmt(secs(b + 1)) + ' after the start: ' + sum +
      ' samples of the ' + tl.samples + ' the timeline holds.';
    info.setAttribute('data-from', secs(a).toFixed(3));
    info.setAttribute('data-to', secs(b + 1).toFixed(3));
    info.setAttribute('data-samples', sum);
    apply(tot);
  }
  function showWhole() {
    sel.style.display = 'none';
    whole.disabled = true;
    describeAll();
    apply(null);
  }
  whole.addEventListener('click', showWhole);

  /* dragging: the slice under the pointer at the press and at the release */
  function sliceAt(clientX) {
    var r = canvas.getBoundingClientRect();
    return Math.max(0, Math.min(ns - 1, Math.floor((clientX - r.left) / (r.width || 1) * ns)));
  }
  var dragFrom = -1;
  canvas.addEventListener('mousedown', function (ev) {
    dragFrom = sliceAt(ev.clientX);
    ev.preventDefault();
  });
  document.addEventListener('mousemove', function (ev) {
    if (dragFrom < 0) return;
    var at = sliceAt(ev.clientX), a = Math.min(dragFrom, at), b = Math.max(dragFrom, at);
    sel.style.display = 'block';
    sel.style.left = (100 * a / ns) + '%';
    sel.style.width = (100 * (b + 1 - a) / ns) + '%';
  });
  document.addEventListener('mouseup', function (ev) {
    if (dragFrom < 0) return;
    var a = dragFrom;
    dragFrom = -1;
    select(a, sliceAt(ev.clientX));
  });
  canvas.addEventListener('mousemove', function (ev) {
    var c = sliceAt(ev.clientX);
    canvas.title = fmt(secs(c)) + ' to ' + fmt(secs(c + 1)) + ': ' + perSlice[c] + ' samples';
  });
  describeAll();

  /* the test hooks: #range=A-B drags from A to B seconds after the start (the real mouse handlers, at
     whole pixels: a slice narrower than a pixel may be missed by one); #whole=1 clicks the button */
  function mouse(target, type, x) {
    var r = canvas.getBoundingClientRect();
    target.dispatchEvent(new MouseEvent(type, { bubbles: true, cancelable: true, view: window,
                                                clientX: x, clientY: r.top + r.height / 2 }));
  }
  return {
    dragSeconds: function (v) {
      var m = /^([0-9.]+)-([0-9.]+)$/.exec(v);
      if (!m) { info.textContent = 'bad range ' + v + ' (expected A-B, seconds)'; return; }
      /* the slices from the one A falls in to the last one before B, pressed and released in their middle */
      var r = canvas.getBoundingClientRect();
      var a = Math.floor((m[1] * 1000 - tl.from) / tl.slice + 1e-6), b = Math.ceil((m[2] * 1000 - tl.from) / tl.slice - 1e-6) - 1;
      var xAt = function (slice) { /* a whole pixel, as a real pointer's */
        return Math.round(r.left + (Math.max(0, Math.min(ns - 1, slice)) + 0.5) / ns * r.width);
      };
      mouse(canvas, 'mousedown', xAt(a));
      mouse(document, 'mousemove', xAt(b));
      mouse(document, 'mouseup', xAt(b));
    },
    whole: function () { whole.click(); }
  };
}
