(function () {
'use strict';
var ROW = 16, MIN_W = 0.001;  /* frames narrower than 0.1% of the view are not drawn */
var KINDS = [
  { name: 'unknown', hue: 215, sat: 35 },
  { name: 'interpreted', hue: 45, sat: 90 },
  { name: 'JIT-compiled', hue: 115, sat: 55 },
  { name: 'inlined', hue: 180, sat: 60 },
  { name: 'native', hue: 8, sat: 80 },
  { name: 'C/C++', hue: 58, sat: 85 },
  { name: 'kernel', hue: 28, sat: 95 },
  { name: 'all', hue: 0, sat: 0 },
  { name: 'allocated class', hue: 280, sat: 55 },
  { name: 'thread', hue: 0, sat: 0 },
  { name: 'thread state', hue: 25, sat: 22 }
];
var UNIT = D.unit || 'samples';
var LIBS = D.libs || {};   /* name index -> the library (or "kernel") of a native frame's name */
var names = D.names, raw = D.nodes, n = raw.length / 3;
var nameOf = new Int32Array(n), kindOf = new Uint8Array(n), total = new Float64Array(n);
var depth = new Int32Array(n);
for (var i = 0; i < n; i++) {
  var key = raw[3 * i];
  kindOf[i] = key % 16; nameOf[i] = (key - key % 16) / 16; total[i] = raw[3 * i + 1]; depth[i] = raw[3 * i + 2];
}
var shape = icShape(depth), end = shape.end;
var T = n ? total[0] : 0;
var flame = $('flame'), statusEl = $('status'), matched = $('matched'), input = $('search');
var zoomed = 0, nameMatch = null;

/* jvmprof diff: what the same call path had before; a frame's colour is the change of its share */
var BEFORE = D.before || null, BT = D.beforeTotal || 0;
function delta(i) { return (T ? total[i] / T : 0) - (BT ? BEFORE[i] / BT : 0); }
function diffColour(i) {
  var d = delta(i), a = Math.min(1, Math.abs(d) / 0.1);
  if (kindOf[i] === 7 || Math.abs(d) < 0.0005) return 'hsl(0,0%,86%)';
  return 'hsl(' + (d > 0 ? 0 : 220) + ',' + (45 + 45 * a).toFixed(0) + '%,' + (86 - 32 * a).toFixed(0) + '%)';
}
function colour(i) {
  if (BEFORE) return diffColour(i);
  var k = KINDS[kindOf[i]], h = icHash(names[nameOf[i]]);
  return 'hsl(' + (k.hue + h % 17 - 8) + ',' + k.sat + '%,' + (62 + (h >>> 8) % 14) + '%)';
}
function pct(v) { return (T ? 100 * v / T : 0).toFixed(2) + '%'; }
function describe(i) {
  var lib = LIBS[nameOf[i]], k = kindOf[i];
  var text = names[nameOf[i]] + ((k === 5 || k === 6) && lib !== undefined ? ' in ' + lib : '') +
             '  (' + KINDS[k].name + ')  ' + total[i] + ' ' + UNIT + ', ' + pct(total[i]);
  if (BEFORE) {
    var d = 100 * delta(i);
    text += '; before: ' + BEFORE[i] + ' ' + UNIT + ', ' + (BT ? 100 * BEFORE[i] / BT : 0).toFixed(2) + '%; ' +
            (d >= 0 ? '+' : '') + d.toFixed(2) + ' points';
  }
  return text;
}
function isMatch(i) { return nameMatch !== null && kindOf[i] !== 7 && nameMatch[nameOf[i]] === 1; }

function addFrame(frag, i, x, w, cls) {
  var e = icBox(shape, i, x, w, 'frame' + cls + (isMatch(i) ? ' match' : ''), ROW);
  e.style.backgroundColor = colour(i);
  if (BEFORE) e.setAttribute('data-delta', delta(i).toFixed(4));
  e.textContent = names[nameOf[i]];
  frag.appendChild(e);
}

/* the zoomed frame spans the width; its ancestors are drawn above it, full width */
function render() {
  flame.textContent = '';
  if (!T) { flame.className = 'empty'; flame.textContent = 'No ' + UNIT + '.'; return; }
  icDraw(flame, shape, total, zoomed, MIN_W, ROW, addFrame);
}
function zoom(i) {
  zoomed = i;
  render();
  statusEl.textContent = describe(i);
  var z = flame.querySelector('.zoomed');
  if (z && z.scrollIntoView) z.scrollIntoView({ block: 'nearest' });
}

/* substring, or /regex/flags; the percent counts a frame under a matched frame once */
function search(text) {
  nameMatch = null;
  matched.textContent = '';
  matched.removeAttribute('data-percent');
  var test = null, m = /^\/(.+)\/([imsu]*)$/.exec(text);
  if (m) {
    try {
      var re = new RegExp(m[1], m[2]);
      test = function (s) { return re.test(s); };
    } catch (err) { matched.textContent = 'bad regular expression: ' + err.message; }
  } else if (text) {
    test = function (s) { return s.indexOf(text) >= 0; };
  }
  if (test) {
    nameMatch = new Uint8Array(names.length);
    for (var j = 0; j < names.length; j++) nameMatch[j] = test(names[j]) ? 1 : 0;
    var sum = 0;
    for (var q = 0; q < n;) {
      if (isMatch(q)) { sum += total[q]; q = end[q]; } else q++;
    }
    matched.textContent = 'Matched: ' + pct(sum) + ' (' + sum + ' of ' + T + ' ' + UNIT + ')';
    matched.setAttribute('data-percent', pct(sum));
  }
  var fs = flame.querySelectorAll('.frame');
  for (var f = 0; f < fs.length; f++) fs[f].classList.toggle('match', isMatch(+fs[f].getAttribute('data-i')));
}

/* #search=TEXT types TEXT into the search box; #click=NAME clicks the widest
   drawn frame named NAME, else the first whose name contains it; #range=A-B drags
   across the timeline from A to B seconds after the start, #whole=1 goes back */
function applyHash() {
  icEachHashPart(function (k, v) {
    if (k === 'search') {
      input.value = v;
      input.dispatchEvent(new Event('input', { bubbles: true }));
    } else if (k === 'click') {
      icClickNamed(flame, 'frame', v, statusEl, 'frame');
    } else if (k === 'range' && timeline) {
      timeline.dragSeconds(v);
    } else if (k === 'whole' && timeline) {
      timeline.whole();
    }
  });
}

icListen(flame, 'frame', statusEl, zoom, describe);
input.addEventListener('input', function () { search(input.value); });
document.addEventListener('keydown', function (ev) {
  if (ev.key === 'Escape' && ev.target !== input) zoom(0);
});
var legend = $('legend');
if (BEFORE) {
  [['grew', 'hsl(0,90%,54%)'], ['shrank', 'hsl(220,90%,54%)'], ['same', 'hsl(0,0%,86%)']].forEach(function (c) {
    var sw = document.createElement('span');
    sw.style.backgroundColor = c[1];
    legend.appendChild(sw);
    legend.appendChild(document.createTextNode(c[0]));
  });
} else (D.unit === 'bytes' ? [8, 0, 9] : [2, 3, 1, 4, 5, 6, 0, 9, 10]).filter(function (k) {
  return (k !== 5 && k !== 6) || kindOf.indexOf(k) >= 0;   /* C/C++ and kernel: when drawn */
}).forEach(function (k) {
  var sw = document.createElement('span');
  sw.style.backgroundColor = 'hsl(' + KINDS[k].hue + ',' + KINDS[k].sat + '%,' + (k === 9 ? 75 : 66) + '%)';
  legend.appendChild(sw);
  legend.appendChild(document.createTextNode(KINDS[k].name));
});
var msw = document.createElement('span');
msw.style.backgroundColor = '#e052e0';
legend.appendChild(msw);
legend.appendChild(document.createTextNode('search match'));
render();
/* record=y: the timeline (timeline.js); a range of it redraws the flame graph from its samples alone */
var full = total.slice();
var timeline = D.timeline ? tlSetup(D.timeline, n, shape.parent, function (tot) {
  total.set(tot || full);
  T = n ? total[0] : 0;
  zoomed = 0;
  render();
  search(input.value);
}) : null;
applyHash();
window.addEventListener('hashchange', applyHash);
})();
