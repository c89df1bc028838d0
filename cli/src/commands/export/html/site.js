// yam export --html: stepping through a game, and filtering the index.
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

  function hashNumber(name) {
    var m = new RegExp('[#&]' + name + '=(\\d+)').exec(window.location.hash);
    return m ? parseInt(m[1], 10) : null;
  }

  function gamePage() {
    var box = document.getElementById('diagrams');
    if (!box) { return; }
    var map = box.getAttribute('data-map').split(',');
    var last = map.length - 1;
    var figures = box.querySelectorAll('figure.pos');
    var moves = document.querySelectorAll('#movetext a.mv');
    var where = document.getElementById('where');
    var ply = 0;
    var list = document.getElementById('movetext');

    // Scroll the move list, not the page, to keep the current move in view.
    function reveal(a) {
      var top = a.offsetTop;
      if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - a.offsetHeight) {
        list.scrollTop = Math.max(0, top - list.clientHeight / 2);
      }
    }

    function visiblePicture() {
      for (var i = 0; i < figures.length; i++) {
        if (!figures[i].hidden) { return figures[i].getAttribute('data-pos'); }
      }
      return '';
    }

    function go(n) {
      ply = Math.max(0, Math.min(last, n));
      var pos = map[ply];
      for (var i = 0; i < figures.length; i++) {
        figures[i].hidden = figures[i].getAttribute('data-pos') !== pos;
      }
      for (var j = 0; j < moves.length; j++) {
        var current = moves[j].getAttribute('data-ply') === String(ply);
        moves[j].classList.toggle('current', current);
        if (current) { reveal(moves[j]); }
      }
      where.textContent = ply === 0 ? 'start' : 'after ' + ply + (ply === 1 ? ' move' : ' moves') + ' of ' + last;
      document.body.setAttribute('data-ply', String(ply));
      document.body.setAttribute('data-picture', visiblePicture());
    }

    var actions = {
      first: function () { go(0); },
      prev: function () { go(ply - 1); },
      next: function () { go(ply + 1); },
      last: function () { go(last); }
    };

    document.addEventListener('keydown', function (e) {
      if (e.altKey || e.ctrlKey || e.metaKey) { return; }
      var t = e.target;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) { return; }
      var act = { ArrowRight: 'next', ArrowLeft: 'prev', Home: 'first', End: 'last' }[e.key];
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
      var a = e.target.closest('a.mv');
      if (a) {
        e.preventDefault();
        go(parseInt(a.getAttribute('data-ply'), 10));
      }
    });
    document.getElementById('controls').hidden = false;

    var start = hashNumber('ply');
    go(start === null ? 0 : start);

    // #selftest=N: step N moves with synthesised key presses and record
    // what was shown, for the browser test (tests/tests/html_export.rs).
    var steps = hashNumber('selftest');
    if (steps !== null) {
      document.body.setAttribute('data-picture-start', visiblePicture());
      for (var k = 0; k < steps; k++) {
        document.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
      }
      document.body.setAttribute('data-selftest', 'done');
    }
  }

  function indexPage() {
    var form = document.getElementById('filters');
    if (!form) { return; }
    var game = document.getElementById('filter-game');
    var player = document.getElementById('filter-player');
    var count = document.getElementById('filter-count');
    var rows = document.querySelectorAll('#games tbody tr');
    function apply() {
      var shown = 0;
      for (var i = 0; i < rows.length; i++) {
        var r = rows[i];
        var okGame = !game.value || r.getAttribute('data-game') === game.value;
        var names = (r.getAttribute('data-players') || '').split('\n');
        var okPlayer = !player.value || names.indexOf(player.value) >= 0;
        r.hidden = !(okGame && okPlayer);
        if (!r.hidden) { shown++; }
      }
      count.textContent = shown + ' of ' + rows.length + ' games';
      document.body.setAttribute('data-shown', String(shown));
    }
    // #game=NAME and #player=NAME preselect the filters: links can share a view.
    var preset = /[#&]game=([^&]*)/.exec(window.location.hash);
    if (preset) { game.value = decodeURIComponent(preset[1]); }
    preset = /[#&]player=([^&]*)/.exec(window.location.hash);
    if (preset) { player.value = decodeURIComponent(preset[1]); }
    game.addEventListener('change', apply);
    player.addEventListener('change', apply);
    form.addEventListener('submit', function (e) { e.preventDefault(); });
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
