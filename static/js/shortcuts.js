// Keys for people who live in the app (docs/web-ui.md#keyboard-shortcuts): `/` puts the cursor in
// the page's search box, Ctrl-K (⌘-K on a Mac) opens the command palette. No inline script exists
// (the Content-Security-Policy forbids it); the palette's markup is server-rendered in the layout
// and its links come from `/_/palette?q=` as ready options.
(function () {
  'use strict';

  /** True while the person is writing somewhere: a key there is text, not a command. */
  function typing(el) {
    if (!(el instanceof Element)) return false;
    if (el.isContentEditable) return true;
    var tag = el.tagName;
    if (tag === 'TEXTAREA' || tag === 'SELECT') return true;
    if (tag !== 'INPUT') return false;
    var type = (el.getAttribute('type') || 'text').toLowerCase();
    return ['button', 'submit', 'reset', 'checkbox', 'radio', 'range', 'color', 'file', 'image'].indexOf(type) === -1;
  }

  function searchBox() {
    return document.querySelector('main input[type="search"]');
  }

  // ---- `/`: the search box -----------------------------------------------------------------
  // On a page with a search box the cursor goes there; on any other, to the search page (the
  // dashboard, or the public list for visitors), which puts it there on arrival (`#search`).
  document.addEventListener('keydown', function (ev) {
    if (ev.key !== '/' || ev.ctrlKey || ev.metaKey || ev.altKey || ev.defaultPrevented) return;
    if (typing(ev.target) || document.querySelector('dialog[open]')) return;
    ev.preventDefault();
    var box = searchBox();
    if (box) {
      box.focus();
      box.select();
      return;
    }
    var to = document.body.getAttribute('data-search-page');
    if (to) window.location.assign(to + '#search');
  });
  function focusOnArrival() {
    var box = searchBox();
    if (!box || (location.hash !== '#search' && location.hash !== '#' + box.id)) return;
    box.focus();
    // The mark has done its work; the address stays the page's own.
    history.replaceState(history.state, '', location.pathname + location.search);
  }

  // ---- The command palette (docs/web-ui.md#command-palette) --------------------------------
  var dialog = null;
  var input = null;
  var list = null;
  var status = null;
  var create = null;
  var createLabel = null;
  var opener = null;
  var pending = null;
  var seq = 0;
  var keyword = 'go';

  function options() {
    return Array.prototype.filter.call(list.querySelectorAll('[role="option"]'), function (o) {
      return !o.hidden;
    });
  }
  function activeIndex(opts) {
    for (var i = 0; i < opts.length; i++) if (opts[i].getAttribute('aria-selected') === 'true') return i;
    return -1;
  }
  function setActive(index) {
    var opts = options();
    opts.forEach(function (o, i) {
      o.setAttribute('aria-selected', i === index ? 'true' : 'false');
    });
    if (index >= 0 && opts[index]) {
      input.setAttribute('aria-activedescendant', opts[index].id);
      opts[index].scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  }
  /** The name "Create go/…" offers for the text typed: what a slug would be, spaces as hyphens. */
  function slugOf(text) {
    return text.trim().toLowerCase().replace(/\s+/g, '-');
  }
  function render(linksHtml) {
    var text = input.value.trim();
    var words = text.toLowerCase();
    // null keeps the links shown until the server's answer for the new text replaces them.
    if (linksHtml !== null) {
      Array.prototype.forEach.call(list.querySelectorAll('[data-palette-option="link"]'), function (o) {
        o.remove();
      });
    }
    if (linksHtml) {
      var t = document.createElement('template');
      t.innerHTML = linksHtml;
      list.insertBefore(t.content, list.firstChild);
    }
    var slug = slugOf(text);
    create.hidden = slug === '';
    createLabel.textContent = 'Create ' + keyword + '/' + slug;
    create.setAttribute('data-href', '/dashboard/links/new?slug=' + encodeURIComponent(slug));
    Array.prototype.forEach.call(list.querySelectorAll('[data-palette-option="page"]'), function (o) {
      o.hidden = words !== '' && (o.getAttribute('data-words') || '').indexOf(words) === -1;
    });
    var opts = options();
    status.textContent = opts.length === 0 ? 'Nothing found.' : opts.length === 1 ? '1 result.' : opts.length + ' results.';
    setActive(opts.length > 0 ? 0 : -1);
  }
  function search() {
    var text = input.value.trim();
    var mine = ++seq;
    if (pending) clearTimeout(pending);
    if (text === '') {
      render('');
      return;
    }
    // The pages filter at once; the links follow when the server answers, the latest typing winning.
    render(null);
    pending = setTimeout(function () {
      fetch('/_/palette?q=' + encodeURIComponent(text), { credentials: 'same-origin', headers: { 'HX-Request': 'true' } })
        .then(function (r) {
          return r.ok ? r.text() : '';
        })
        .catch(function () {
          return '';
        })
        .then(function (html) {
          if (mine === seq && dialog.open) render(html);
        });
    }, 120);
  }
  function open() {
    if (!dialog || dialog.open) return;
    opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    input.value = '';
    render('');
    dialog.showModal();
    input.focus();
  }
  function go(option) {
    var href = option && option.getAttribute('data-href');
    if (!href) return;
    dialog.close();
    window.location.assign(href);
  }

  function setup() {
    dialog = document.getElementById('command-palette');
    if (!dialog) return;
    input = document.getElementById('palette-input');
    list = document.getElementById('palette-list');
    status = document.getElementById('palette-status');
    create = document.getElementById('palette-create');
    createLabel = create.querySelector('[data-palette-label]');
    keyword = dialog.getAttribute('data-short-keyword') || 'go';
    if (/Mac|iPhone|iPad/.test(navigator.platform || '') || /Mac OS X|iPhone|iPad/.test(navigator.userAgent)) {
      Array.prototype.forEach.call(document.querySelectorAll('[data-palette-keys]'), function (k) {
        k.textContent = '⌘ K';
      });
    }
    input.addEventListener('input', search);
    input.addEventListener('keydown', function (ev) {
      var opts = options();
      var current = activeIndex(opts);
      if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
        ev.preventDefault();
        if (opts.length === 0) return;
        var step = ev.key === 'ArrowDown' ? 1 : -1;
        setActive(current === -1 ? (step === 1 ? 0 : opts.length - 1) : (current + step + opts.length) % opts.length);
      } else if (ev.key === 'Home' && opts.length > 0 && ev.ctrlKey) {
        ev.preventDefault();
        setActive(0);
      } else if (ev.key === 'End' && opts.length > 0 && ev.ctrlKey) {
        ev.preventDefault();
        setActive(opts.length - 1);
      } else if (ev.key === 'Enter') {
        ev.preventDefault();
        go(opts[current === -1 ? 0 : current]);
      }
    });
    // A press on an option keeps the focus in the field; the click opens it.
    list.addEventListener('mousedown', function (ev) {
      if (ev.target instanceof Element && ev.target.closest('[role="option"]')) ev.preventDefault();
    });
    list.addEventListener('click', function (ev) {
      go(ev.target instanceof Element ? ev.target.closest('[role="option"]') : null);
    });
    // Escape, the backdrop and opening an option all close it; the focus goes back where it was.
    dialog.addEventListener('close', function () {
      seq++;
      if (opener && document.body.contains(opener)) opener.focus();
      opener = null;
    });
  }

  document.addEventListener('click', function (ev) {
    var btn = ev.target instanceof Element ? ev.target.closest('[data-palette-open]') : null;
    if (!btn || !dialog) return;
    ev.preventDefault();
    // The phone's drawer closes behind it, so closing the palette shows the page.
    var drawer = document.getElementById('nav-drawer');
    if (drawer && drawer.checked && btn.closest('.drawer-side')) drawer.checked = false;
    open();
  });
  document.addEventListener('keydown', function (ev) {
    if (!dialog || ev.altKey || ev.shiftKey || !(ev.ctrlKey || ev.metaKey) || (ev.key !== 'k' && ev.key !== 'K')) return;
    ev.preventDefault();
    if (dialog.open) dialog.close();
    else if (!document.querySelector('dialog[open]')) open();
  });

  function init() {
    setup();
    focusOnArrival();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
