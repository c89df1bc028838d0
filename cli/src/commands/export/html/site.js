// yam export --html: drawing and stepping through a game's diagrams, and
// searching the index.
// Plain script (no modules, no fetch), so pages work from file:// too.
(function () {
  'use strict';

  // Errors are kept on the page, for readers and for the browser test.
  var errors = [];
  function noteErrors() {
    document.documentElement.setAttribute('data-errors', JSON.stringify(errors));
  }
  window.addEventListener('error', function (e) {
    errors.push(String(e.message || e));
    noteErrors();
  });

  function hashValue(name) {
    var m = new RegExp('[#&]' + name + '=([^&]*)').exec(window.location.hash);
    if (!m) { return null; }
    // A link cut after a `%`, or one written by hand (`#text=100%`), does
    // not decode: taken as written rather than stopping the script.
    try { return decodeURIComponent(m[1]); } catch (e) { return m[1]; }
  }
  function hashNumber(name) {
    var v = hashValue(name);
    return v !== null && /^\d+$/.test(v) ? parseInt(v, 10) : null;
  }

  // A frame's SVG lines, rebuilt from its parent's by the page's
  // operations (see frames.rs): n > 0 copies n lines, n < 0 skips -n, an
  // array inserts line ids. Ids index the site's chunks lines/K.js.
  function Frames(data) {
    var chunkSize = 1024;
    var cache = {};
    function line(id) {
      var chunk = window.yamLines && window.yamLines[Math.floor(id / chunkSize)];
      if (!chunk) { throw new Error('diagram line ' + id + ' is missing: lines/' + Math.floor(id / chunkSize) + '.js not loaded'); }
      return chunk[id % chunkSize];
    }
    function build(k) {
      // Walk up to a frame already built (or the start), then down: no
      // recursion, however long the game.
      var path = [];
      var at = k;
      while (at >= 0 && !cache[at]) { path.push(at); at = data.frames[at][0]; }
      for (var p = path.length - 1; p >= 0; p--) {
        var f = data.frames[path[p]];
        var parent = f[0] < 0 ? [] : cache[f[0]];
        var out = [];
        var from = 0;
        for (var i = 1; i < f.length; i++) {
          var op = f[i];
          if (typeof op === 'number') {
            if (op > 0) {
              for (var j = 0; j < op; j++) { out.push(parent[from + j]); }
              from += op;
            } else {
              from -= op;
            }
          } else {
            for (var q = 0; q < op.length; q++) { out.push(op[q]); }
          }
        }
        cache[path[p]] = out;
      }
      return cache[k];
    }
    return {
      count: data.frames.length,
      main: data.main,
      parent: function (k) { return data.frames[k][0]; },
      svg: function (k) { return build(k).map(line).join('\n'); }
    };
  }

  function gamePage() {
    var box = document.getElementById('diagrams');
    var dataElement = document.getElementById('frame-data');
    if (!box || !dataElement) { return; }
    var frames = Frames(JSON.parse(dataElement.textContent));
    var figure = document.getElementById('picture');
    var list = document.getElementById('movetext');
    var moves = list.querySelectorAll('a.mv[data-frame]');
    var where = document.getElementById('where');
    var mainButton = document.querySelector('#controls button[data-go="main"]');
    var lastMain = frames.main - 1;

    // The moves that show each frame, and each frame's continuation: the
    // first move after it in the text whose position it is played from.
    var anchorOf = {};
    var nextOf = {};
    for (var i = 0; i < moves.length; i++) {
      var f = parseInt(moves[i].getAttribute('data-frame'), 10);
      anchorOf[f] = moves[i];
      var parent = frames.parent(f);
      if (parent >= 0 && nextOf[parent] === undefined) { nextOf[parent] = f; }
    }
    // Along the main line the next frame is simply the next ply.
    for (var m = 0; m < lastMain; m++) { nextOf[m] = m + 1; }

    function inVariation(k) { return k >= frames.main; }
    function depth(k) {
      var d = 0;
      while (frames.parent(k) >= 0) { k = frames.parent(k); d++; }
      return d;
    }
    // The main-line frame a variation branches from.
    function branch(k) {
      while (inVariation(k)) { k = frames.parent(k); }
      return k;
    }

    // Scroll the move list, not the page, to keep the current move in view.
    function reveal(a) {
      var top = a.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - a.offsetHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 2);
      }
    }

    var current = 0;
    function go(k) {
      if (k < 0 || k >= frames.count) { return; }
      current = k;
      figure.innerHTML = frames.svg(k);
      var shown = anchorOf[k];
      var marked = list.querySelectorAll('a.mv.current');
      for (var j = 0; j < marked.length; j++) { marked[j].classList.remove('current'); }
      if (shown) { shown.classList.add('current'); reveal(shown); }
      var plies = depth(k);
      if (inVariation(k)) {
        where.textContent = 'variation: after ' + (shown ? shown.textContent : '?') +
          ', ' + plies + (plies === 1 ? ' ply' : ' plies') + ' from the start';
      } else {
        where.textContent = k === 0 ? 'start' : 'after ' + k + (k === 1 ? ' ply' : ' plies') + ' of ' + lastMain;
      }
      mainButton.hidden = !inVariation(k);
      document.body.setAttribute('data-frame', String(k));
      document.body.setAttribute('data-ply', String(plies));
      document.body.setAttribute('data-line', inVariation(k) ? 'variation' : 'main');
      document.body.setAttribute('data-picture', String(k));
    }

    var actions = {
      first: function () { go(0); },
      prev: function () { if (frames.parent(current) >= 0) { go(frames.parent(current)); } },
      next: function () { if (nextOf[current] !== undefined) { go(nextOf[current]); } },
      last: function () {
        var k = current;
        while (nextOf[k] !== undefined) { k = nextOf[k]; }
        go(k);
      },
      main: function () { go(branch(current)); }
    };

    document.addEventListener('keydown', function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) { return; }
      var t = e.target;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) { return; }
      var act = { ArrowRight: 'next', ArrowLeft: 'prev', Home: 'first', End: 'last', ArrowUp: 'main' }[e.key];
      if (act) {
        e.preventDefault();
        actions[act]();
      }
    });
    document.getElementById('controls').addEventListener('click', function (e) {
      var b = e.target.closest('button[data-go]');
      if (b) { actions[b.getAttribute('data-go')](); }
    });
    list.addEventListener('click', function (e) {
      var a = e.target.closest('a.mv[data-frame]');
      if (a) {
        e.preventDefault();
        go(parseInt(a.getAttribute('data-frame'), 10));
      }
    });
    document.getElementById('controls').hidden = false;

    // #ply=N opens the main line after N plies, #frame=K any frame (a
    // variation's too): links can share a position.
    var ply = hashNumber('ply');
    var frame = hashNumber('frame');
    // A frame the game does not have (a link made before a re-export, a
    // mistyped number) opens as if it were not there.
    if (frame !== null && frame >= frames.count) { frame = null; }
    go(frame !== null ? frame : ply !== null ? Math.min(ply, lastMain) : 0);

    // #selftest=N: step N moves with synthesised key presses and record
    // what was shown, for the browser test (tests/tests/html_export.rs).
    var steps = hashNumber('selftest');
    if (steps !== null) {
      // No walk is longer than the game's frames: a link's huge number
      // must not hold the page for ever.
      steps = Math.min(steps, frames.count);
      document.body.setAttribute('data-picture-start', figure.innerHTML.length + ':' + current);
      document.body.setAttribute('data-svg-start', figure.innerHTML);
      for (var s = 0; s < steps; s++) {
        document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      }
      document.body.setAttribute('data-svg', figure.innerHTML);
      document.body.setAttribute('data-selftest', 'done');
    }
  }

  // The search: every listing page's rows (index/K.js), loaded when a
  // search is made, matched here, the first matches shown.
  function indexPage() {
    var form = document.getElementById('filters');
    if (!form) { return; }
    var pages = parseInt(form.getAttribute('data-pages'), 10) || 0;
    var game = document.getElementById('filter-game');
    var status = document.getElementById('filter-status');
    var player = document.getElementById('filter-player');
    var text = document.getElementById('filter-text');
    var count = document.getElementById('filter-count');
    var listing = document.getElementById('listing');
    var results = document.getElementById('results');
    var body = results.querySelector('tbody');
    var shownAtMost = 1000;
    var loaded = 0;
    var loading = false;
    var waiting = [];

    function loadAll(then) {
      if (loaded === pages) { then(); return; }
      waiting.push(then);
      if (loading) { return; }
      loading = true;
      count.textContent = 'loading the games…';
      for (var k = 1; k <= pages; k++) {
        var script = document.createElement('script');
        script.src = 'index/' + k + '.js';
        script.async = false;
        script.onload = function () {
          loaded++;
          if (loaded === pages) {
            var w = waiting;
            waiting = [];
            for (var i = 0; i < w.length; i++) { w[i](); }
          }
        };
        script.onerror = function () { errors.push('cannot load ' + this.src); noteErrors(); };
        document.body.appendChild(script);
      }
    }

    function cell(row, content, className) {
      var td = document.createElement('td');
      if (className) { td.className = className; }
      if (content !== null) { td.textContent = content; }
      row.appendChild(td);
      return td;
    }

    // A row: [number, href, game, title, variant, players, date, result,
    // statusClass, statusShort, score, archive, index, event, site].
    function render(r) {
      var tr = document.createElement('tr');
      cell(tr, String(r[0]));
      cell(tr, r[2] || '(unreadable)');
      var a = document.createElement('a');
      a.href = r[1];
      a.textContent = r[3];
      cell(tr, null).appendChild(a);
      cell(tr, r[4]);
      // Each name its own <bdi>, as in the listing: two right-to-left
      // names and the dash between them were one run, the seats swapped.
      var players = cell(tr, null, 'players');
      r[5].forEach(function (name, i) {
        if (i > 0) { players.appendChild(document.createTextNode(' – ')); }
        var bdi = document.createElement('bdi');
        bdi.textContent = name;
        players.appendChild(bdi);
      });
      cell(tr, r[6]);
      cell(tr, r[7]);
      var span = document.createElement('span');
      span.className = 'status ' + r[8];
      span.textContent = r[9];
      cell(tr, null).appendChild(span);
      cell(tr, r[10]);
      cell(tr, r[11] + ' #' + r[12], 'archive');
      return tr;
    }

    function apply() {
      var g = game.value;
      var st = status.value;
      var p = player.value.trim().toLowerCase();
      var t = text.value.trim().toLowerCase();
      if (!g && !st && !p && !t) {
        listing.hidden = false;
        results.hidden = true;
        count.textContent = '';
        document.body.removeAttribute('data-shown');
        return;
      }
      loadAll(function () {
        var matched = 0;
        var fragment = document.createDocumentFragment();
        for (var k = 1; k <= pages; k++) {
          var rows = window.yamRows[k] || [];
          for (var i = 0; i < rows.length; i++) {
            var r = rows[i];
            if (g && r[2] !== g) { continue; }
            if (st && r[8] !== st) { continue; }
            if (p && !r[5].some(function (n) { return n.toLowerCase().indexOf(p) >= 0; })) { continue; }
            if (t && [r[3], r[6], r[7], r[13], r[14], r[11]].join('\n').toLowerCase().indexOf(t) < 0) { continue; }
            matched++;
            if (matched <= shownAtMost) { fragment.appendChild(render(r)); }
          }
        }
        body.textContent = '';
        body.appendChild(fragment);
        listing.hidden = true;
        results.hidden = false;
        count.textContent = matched + (matched === 1 ? ' game matches' : ' games match') +
          (matched > shownAtMost ? ' (the first ' + shownAtMost + ' shown)' : '');
        document.body.setAttribute('data-shown', String(matched));
      });
    }

    // #game=, #status=, #player= and #text= preset the search: links can
    // share a view.
    var presets = { game: game, status: status, player: player, text: text };
    for (var name in presets) {
      var v = hashValue(name);
      if (v !== null) { presets[name].value = v; }
    }
    game.addEventListener('change', apply);
    status.addEventListener('change', apply);
    player.addEventListener('input', apply);
    text.addEventListener('input', apply);
    form.addEventListener('submit', function (e) { e.preventDefault(); apply(); });
    form.hidden = false;
    apply();
  }

  function start() {
    noteErrors();
    gamePage();
    indexPage();
    noteErrors();
  }
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
}());
