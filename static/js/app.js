// Progressive enhancement for the server-rendered pages. No inline scripts
// exist (the Content-Security-Policy forbids them) and HTMX runs without eval,
// so every behaviour here hangs off data-* hooks and HTMX events. Pages work
// without this file: links navigate and forms post.
(function () {
  'use strict';

  var root = document.documentElement;

  // ---- Theme (docs/web-ui.md#theme) -------------------------------------------------
  // The switch offers System, Light and Dark. A click applies the choice at once
  // (data-theme, and with it every colour), marks its button pressed, then saves it.
  // Saves are serialised: while one is in flight further clicks only change the
  // page, and when it returns the latest choice is saved if it differs, so the
  // cookie always ends on what the page shows, however fast the clicks. While
  // System is chosen the page follows the system preference as it changes.
  var CHOICES = ['system', 'joe-light', 'joe-dark'];
  var darkQuery = window.matchMedia ? window.matchMedia('(prefers-color-scheme: dark)') : null;
  function systemTheme() {
    return darkQuery && darkQuery.matches ? 'joe-dark' : 'joe-light';
  }
  var cookieTheme = document.cookie.match(/(?:^|;\s*)theme=(joe-light|joe-dark)(?:;|$)/);
  var chosen = cookieTheme ? cookieTheme[1] : 'system';
  var persisted = chosen;
  var posting = false;
  function applyChoice(choice) {
    chosen = choice;
    root.setAttribute('data-theme', choice === 'system' ? systemTheme() : choice);
    Array.prototype.forEach.call(document.querySelectorAll('[data-theme-choice]'), function (b) {
      b.setAttribute('aria-pressed', b.getAttribute('data-theme-choice') === choice ? 'true' : 'false');
    });
  }
  if (darkQuery && darkQuery.addEventListener) {
    darkQuery.addEventListener('change', function () {
      if (chosen === 'system') applyChoice('system');
    });
  }
  function persistTheme() {
    if (posting) return;
    var wanted = chosen;
    if (wanted === persisted) return;
    posting = true;
    fetch('/dashboard/theme', {
      method: 'POST',
      body: new URLSearchParams({ theme: wanted }),
      credentials: 'same-origin',
      headers: { 'HX-Request': 'true' },
    })
      .then(function (r) {
        if (r.ok) persisted = wanted;
      })
      .catch(function () {})
      .finally(function () {
        posting = false;
        if (chosen !== persisted && persisted === wanted) persistTheme();
      });
  }
  document.addEventListener('click', function (ev) {
    var btn = ev.target instanceof Element ? ev.target.closest('[data-theme-choice]') : null;
    if (!btn) return;
    var choice = btn.getAttribute('data-theme-choice');
    if (CHOICES.indexOf(choice) === -1) return;
    ev.preventDefault();
    applyChoice(choice);
    persistTheme();
    var menu = btn.closest('details');
    if (menu) menu.removeAttribute('open');
  });

  // ---- Toasts (#toast-area, docs/web-ui.md#feedback) ------------------------------------
  // Every change answers with `HX-Trigger: {"showToast": {level, message, copy?}}`; this is
  // the one place that turns it into a toast. A form post without JavaScript gets the same
  // message server-rendered into #toast-area after its redirect. A toast with a Copy button
  // stays longer, and none leaves while the pointer or focus is on it. Page scripts dispatch
  // the same event with `action: {label, name, run}` (a button in the toast) and `held: true`
  // (they remove the toast themselves); the toast element is handed back in `detail.toast`.
  var toastArea = function () {
    return document.getElementById('toast-area');
  };
  function scheduleRemoval(el) {
    if (el.hasAttribute('data-toast-scheduled')) return;
    el.setAttribute('data-toast-scheduled', '');
    var ms = Number(el.getAttribute('data-toast-ms')) || (el.classList.contains('alert-error') ? 6000 : 4000);
    function remove() {
      if (!el.parentNode) return;
      if (el.matches(':hover') || el.contains(document.activeElement)) {
        setTimeout(remove, 1500);
        return;
      }
      el.parentNode.removeChild(el);
    }
    setTimeout(remove, ms);
  }
  function toastButton(label) {
    var btn = document.createElement('button');
    btn.type = 'button';
    btn.className = 'btn btn-sm';
    btn.textContent = label;
    return btn;
  }
  function showToast(level, message, ms, copy, opts) {
    var area = toastArea();
    if (!area || !message) return null;
    var el = document.createElement('div');
    el.className = 'alert shadow-md ' + (level === 'error' ? 'alert-error' : level === 'info' ? 'alert-info' : 'alert-success');
    el.setAttribute('role', level === 'error' ? 'alert' : 'status');
    el.setAttribute('data-toast', '');
    var span = document.createElement('span');
    span.textContent = message;
    el.appendChild(span);
    if (copy) {
      var btn = toastButton('Copy link');
      btn.setAttribute('data-copy', copy);
      btn.setAttribute('data-copy-swap', '');
      el.appendChild(btn);
      ms = ms || 10000;
    }
    var action = opts && opts.action;
    if (action && typeof action.run === 'function') {
      var act = toastButton(action.label);
      if (action.name) act.setAttribute('aria-label', action.name);
      act.addEventListener('click', action.run);
      el.appendChild(act);
    }
    if (ms) el.setAttribute('data-toast-ms', String(ms));
    // A held toast is removed by whoever showed it, never by the timer.
    if (opts && opts.held) el.setAttribute('data-toast-scheduled', '');
    area.appendChild(el);
    scheduleRemoval(el);
    return el;
  }
  function watchToasts() {
    var area = toastArea();
    if (!area) return;
    Array.prototype.forEach.call(area.querySelectorAll('[data-toast]'), scheduleRemoval);
    new MutationObserver(function () {
      Array.prototype.forEach.call(area.querySelectorAll('[data-toast]'), scheduleRemoval);
    }).observe(area, { childList: true, subtree: true });
  }
  document.addEventListener('showToast', function (ev) {
    var d = ev.detail || {};
    d.toast = showToast(d.level || 'success', d.message, 0, typeof d.copy === 'string' ? d.copy : null, d);
  });
  // A created link's row is marked once the list that holds it has refreshed.
  var newRowId = null;
  document.addEventListener('linkCreated', function (ev) {
    newRowId = (ev.detail && ev.detail.id) || null;
  });
  document.addEventListener('htmx:afterSettle', function () {
    if (!newRowId) return;
    var row = document.getElementById('link-' + newRowId);
    if (!row) return;
    newRowId = null;
    row.classList.add('row-new');
    row.scrollIntoView({ block: 'nearest' });
  });
  // A swap that replaces the control a person just used must not drop their place on the page
  // (docs/web-ui.md#feedback): the focus goes back to the new element with the focused one's id
  // (HTMX does so itself unless the control was disabled during the request, which takes its
  // focus away), or, when there is none (a report row that went away), to what the swap put in
  // the target's place, rather than to the start of the page.
  var focusedAtRequest = null;
  document.addEventListener('htmx:beforeRequest', function (ev) {
    var active = document.activeElement;
    var elt = ev.detail.elt;
    var target = ev.detail.target;
    focusedAtRequest =
      active && active !== document.body && elt instanceof Element && elt.contains(active)
        ? { id: active.id, targetId: target ? target.id : '' }
        : null;
  });
  document.addEventListener('htmx:afterSettle', function () {
    var was = focusedAtRequest;
    focusedAtRequest = null;
    if (!was || (document.activeElement && document.activeElement !== document.body)) return;
    var place =
      (was.id && document.getElementById(was.id)) ||
      (was.targetId && document.getElementById(was.targetId)) ||
      document.getElementById('main');
    if (!place) return;
    if (!place.hasAttribute('tabindex') && !place.matches('a[href], button, input, select, textarea')) place.setAttribute('tabindex', '-1');
    place.focus({ preventScroll: true });
  });
  // HTMX swaps nothing on 4xx/5xx; say what happened instead of failing silently.
  var STATUS_MESSAGES = {
    400: 'That request could not be processed.',
    403: "You don't have permission to do that.",
    404: 'Not found. It may have been deleted.',
    409: 'That conflicts with existing data.',
    503: 'The server is busy. Please try again in a moment.',
  };
  document.addEventListener('htmx:responseError', function (ev) {
    var xhr = ev.detail.xhr;
    if (/showToast/.test(xhr.getResponseHeader('HX-Trigger') || '')) return;
    var type = xhr.getResponseHeader('Content-Type') || '';
    var text = /^text\/plain/.test(type) ? String(xhr.responseText || '').trim() : '';
    showToast('error', text && text.length <= 200 ? text : STATUS_MESSAGES[xhr.status] || 'Something went wrong. Please try again.');
  });
  document.addEventListener('htmx:sendError', function () {
    showToast('error', 'Could not reach the server. Check your connection and try again.');
  });

  // ---- Copy buttons ---------------------------------------------------------
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    // Plain-http deployments have no Clipboard API; a selected textarea still copies.
    return new Promise(function (resolve, reject) {
      var ta = document.createElement('textarea');
      ta.value = text;
      ta.setAttribute('readonly', '');
      ta.className = 'fixed -left-[9999px] top-0';
      document.body.appendChild(ta);
      ta.select();
      var ok = false;
      try {
        ok = document.execCommand('copy');
      } catch (e) {
        // ok stays false: the caller shows that copying failed.
      }
      document.body.removeChild(ta);
      ok ? resolve() : reject(new Error('copy failed'));
    });
  }
  document.addEventListener('click', function (ev) {
    var btn = ev.target instanceof Element ? ev.target.closest('[data-copy]') : null;
    if (!btn) return;
    ev.preventDefault();
    copyText(btn.getAttribute('data-copy') || '').then(
      function () {
        if (btn.hasAttribute('data-copy-swap')) {
          btn.textContent = 'Copied!';
          return;
        }
        var toast = btn.getAttribute('data-copy-toast');
        if (toast) {
          showToast('success', toast, 3000);
          return;
        }
        var tip = btn.getAttribute('data-tip');
        var label = btn.getAttribute('aria-label');
        btn.setAttribute('data-tip', 'Copied!');
        btn.setAttribute('aria-label', 'Copied!');
        btn.classList.add('tooltip-open');
        clearTimeout(btn._copyTimer);
        btn._copyTimer = setTimeout(function () {
          if (tip !== null) btn.setAttribute('data-tip', tip);
          if (label !== null) btn.setAttribute('aria-label', label);
          btn.classList.remove('tooltip-open');
        }, 1500);
      },
      function () {
        showToast('error', 'Could not copy. Select the text and copy it by hand.');
      },
    );
  });

  // ---- Modals (#modal) ------------------------------------------------------
  // Fragments swapped into #modal hold a <dialog data-modal>. showModal() makes
  // the page behind it inert; Tab is kept inside, Esc and the backdrop close it,
  // closing empties #modal, and focus goes back to the control that opened it.
  var opener = null;
  var FOCUSABLE =
    'a[href], button:not([disabled]), input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';
  function modalRoot() {
    return document.getElementById('modal');
  }
  function openDialog(dialog) {
    if (!dialog || dialog.open) return;
    if (typeof dialog.showModal === 'function') dialog.showModal();
    else dialog.setAttribute('open', '');
    var first =
      dialog.querySelector('[autofocus]') ||
      dialog.querySelector('.modal-box ' + 'input:not([type="hidden"]):not([disabled]), .modal-box select, .modal-box textarea');
    if (!first) {
      var all = dialog.querySelectorAll('.modal-box ' + FOCUSABLE.split(', ').join(', .modal-box '));
      first = all.length > 1 ? all[1] : all[0]; // skip the corner close button when there is more
    }
    if (first) first.focus();
  }
  function closeModal() {
    var m = modalRoot();
    if (!m) return;
    var dialog = m.querySelector('dialog');
    if (dialog && dialog.open) dialog.close();
    else finishClose();
  }
  function finishClose() {
    var m = modalRoot();
    if (m) m.innerHTML = '';
    var back = opener;
    opener = null;
    if (back && document.body.contains(back)) {
      // A choice of a closed menu is hidden: its button takes the focus back.
      var menu = back.closest('details[data-menu]');
      (menu && !menu.open ? menu.querySelector('summary') : back).focus();
    } else {
      var main = document.getElementById('main');
      if (main) main.focus();
    }
  }
  document.addEventListener(
    'close',
    function (ev) {
      var d = ev.target;
      if (d instanceof HTMLDialogElement && d.closest('#modal')) finishClose();
    },
    true,
  );
  document.addEventListener('htmx:beforeRequest', function (ev) {
    var t = ev.detail.target;
    if (t && t.id === 'modal' && !t.querySelector('dialog[open]')) opener = ev.detail.elt;
  });
  document.addEventListener('htmx:afterSwap', function (ev) {
    var t = ev.detail.target;
    if (t && t.id === 'modal') openDialog(t.querySelector('dialog[data-modal]'));
  });
  document.addEventListener('htmx:afterRequest', function (ev) {
    var elt = ev.detail.elt;
    if (ev.detail.successful && elt instanceof Element && elt.closest('[data-close-modal-on-success]') && elt.closest('#modal'))
      closeModal();
  });
  document.addEventListener('linkCreated', closeModal);
  document.addEventListener('linkUpdated', closeModal);
  document.addEventListener('click', function (ev) {
    var t = ev.target instanceof Element ? ev.target : null;
    if (!t) return;
    var closer = t.closest('[data-modal-close]');
    if (closer) {
      ev.preventDefault();
      var d = closer.closest('dialog');
      if (d && d.closest('#modal')) closeModal();
      else if (d) d.close();
    }
  });
  document.addEventListener('keydown', function (ev) {
    if (ev.key !== 'Tab') return;
    var dialog = document.querySelector('dialog[open]');
    if (!dialog) return;
    var items = Array.prototype.filter.call(dialog.querySelectorAll(FOCUSABLE), function (el) {
      return el.getClientRects().length > 0 && !el.closest('.modal-backdrop');
    });
    if (items.length === 0) return;
    var first = items[0];
    var last = items[items.length - 1];
    if (!dialog.contains(document.activeElement)) {
      ev.preventDefault();
      first.focus();
    } else if (ev.shiftKey && document.activeElement === first) {
      ev.preventDefault();
      last.focus();
    } else if (!ev.shiftKey && document.activeElement === last) {
      ev.preventDefault();
      first.focus();
    }
  });

  // ---- Menus (details[data-menu], a card's ⋮) ---------------------------------------------
  // A menu closes on Escape, on a tap outside it and on a choice. Escape and a tap on nothing
  // in particular give the focus back to its button; a tap outside only closes the menu, so the
  // card under it does not open as well.
  function openMenus() {
    return Array.prototype.slice.call(document.querySelectorAll('details[data-menu][open]'));
  }
  function closeMenu(menu, refocus) {
    menu.open = false;
    var button = menu.querySelector('summary');
    if (refocus && button) button.focus();
  }
  document.addEventListener('keydown', function (ev) {
    if (ev.key !== 'Escape') return;
    var open = openMenus();
    if (open.length === 0) return;
    ev.preventDefault();
    open.forEach(function (menu) {
      closeMenu(menu, true);
    });
  });
  document.addEventListener(
    'click',
    function (ev) {
      var t = ev.target instanceof Element ? ev.target : null;
      openMenus().forEach(function (menu) {
        if (t && menu.contains(t)) {
          // A choice closes the menu once it has been taken; the summary toggles it itself.
          if (t.closest('li a, li button')) setTimeout(closeMenu, 0, menu, false);
          return;
        }
        var control = t && t.closest(FOCUSABLE + ', summary, label');
        if (!control) ev.preventDefault();
        closeMenu(menu, !control);
      });
    },
    true,
  );
  // Tapping a card away from its controls opens the link's page (docs/web-ui.md#link-tables);
  // the card holds no link around or over its own links, so each is a target of its own.
  document.addEventListener('click', function (ev) {
    var t = ev.target instanceof Element ? ev.target : null;
    if (!t || ev.defaultPrevented || ev.button !== 0) return;
    var card = t.closest('[data-card-href]');
    if (!card || t.closest(FOCUSABLE + ', summary, label, details')) return;
    // Only where the row is a card; a table row from 1024 px is no tap target.
    if (getComputedStyle(card).display === 'table-row') return;
    if (window.getSelection && String(window.getSelection()) !== '') return;
    window.location.assign(card.getAttribute('data-card-href'));
  });

  // ---- Link form behaviour (docs/web-ui.md#link-forms) ----------------------------------
  // Tag autocomplete asks for the text after the last comma only.
  document.addEventListener('htmx:configRequest', function (ev) {
    var elt = ev.detail.elt;
    if (!(elt instanceof Element) || !elt.hasAttribute('data-tag-input')) return;
    var parts = elt.value.split(',');
    ev.detail.parameters = { q: parts[parts.length - 1].trim() };
  });
  document.addEventListener('click', function (ev) {
    var btn = ev.target instanceof Element ? ev.target.closest('[data-tag-suggestion]') : null;
    if (!btn) return;
    ev.preventDefault();
    var form = btn.closest('form');
    var input = form && form.querySelector('[data-tag-input]');
    if (!input) return;
    var parts = input.value.split(',');
    parts[parts.length - 1] = (parts.length > 1 ? ' ' : '') + btn.getAttribute('data-tag');
    input.value = parts.join(',') + ', ';
    var box = btn.closest('[data-tag-suggestions]');
    if (box) box.innerHTML = '';
    input.focus();
  });

  // ---- People-and-groups picker (docs/web-ui.md#link-detail-page) -----------------------
  // The add field of the owners and shares panels is a combobox: HTMX fills the list under it
  // ([data-picker-list]) as one types; here the arrows move through the options
  // (aria-activedescendant), Enter or a tap chooses one, Escape or leaving the field closes
  // the list. Choosing a group puts its name in the hidden `group` field; a person, their
  // email in the field. Either way the form is sent at once, as pressing its button would.
  function pickerList(input) {
    return document.getElementById(input.getAttribute('data-picker') || '');
  }
  function pickerOptions(input) {
    var list = pickerList(input);
    return list ? Array.prototype.slice.call(list.querySelectorAll('[role="option"]')) : [];
  }
  function setActive(input, index) {
    var options = pickerOptions(input);
    options.forEach(function (o, i) {
      o.setAttribute('aria-selected', i === index ? 'true' : 'false');
    });
    if (index >= 0 && options[index]) {
      input.setAttribute('aria-activedescendant', options[index].id);
      options[index].scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  }
  function closePicker(input) {
    var list = pickerList(input);
    if (list) list.innerHTML = '';
    input.setAttribute('aria-expanded', 'false');
    input.removeAttribute('aria-activedescendant');
    input.removeAttribute('aria-controls');
  }
  function choose(input, option) {
    var form = input.form;
    var group = form && form.querySelector('[data-picker-group]');
    if (!form || !group) return;
    var kind = option.getAttribute('data-pick-kind');
    var value = option.getAttribute('data-pick-value') || '';
    group.value = kind === 'group' ? value : '';
    input.value = value;
    closePicker(input);
    if (typeof form.requestSubmit === 'function') form.requestSubmit();
    else form.submit();
  }
  document.addEventListener('htmx:afterSwap', function (ev) {
    var t = ev.detail.target;
    if (!(t instanceof Element) || !t.hasAttribute('data-picker-list')) return;
    var input = document.querySelector('[data-picker="' + t.id + '"]');
    if (!input) return;
    var box = t.querySelector('[role="listbox"]');
    // An answer that arrives after the field was left or emptied is not shown.
    if (document.activeElement !== input || input.value.trim().length < 2) {
      closePicker(input);
      return;
    }
    input.setAttribute('aria-expanded', box ? 'true' : 'false');
    if (box) input.setAttribute('aria-controls', box.id);
    else input.removeAttribute('aria-controls');
    setActive(input, -1);
  });
  document.addEventListener('input', function (ev) {
    var input = ev.target instanceof Element && ev.target.hasAttribute('data-picker') ? ev.target : null;
    if (!input) return;
    // Typing again names a person or a group afresh.
    var group = input.form && input.form.querySelector('[data-picker-group]');
    if (group) group.value = '';
    if (input.value.trim().length < 2) closePicker(input);
  });
  document.addEventListener('keydown', function (ev) {
    var input = ev.target instanceof Element && ev.target.hasAttribute('data-picker') ? ev.target : null;
    if (!input) return;
    var options = pickerOptions(input);
    var current = options.findIndex(function (o) {
      return o.getAttribute('aria-selected') === 'true';
    });
    if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      if (options.length === 0) return;
      ev.preventDefault();
      var step = ev.key === 'ArrowDown' ? 1 : -1;
      setActive(input, current === -1 ? (step === 1 ? 0 : options.length - 1) : (current + step + options.length) % options.length);
    } else if (ev.key === 'Enter' && current !== -1) {
      ev.preventDefault();
      choose(input, options[current]);
    } else if (ev.key === 'Escape' && input.getAttribute('aria-expanded') === 'true') {
      ev.preventDefault();
      closePicker(input);
    }
  });
  // Pressing an option keeps focus in the field, so leaving it does not close the list first.
  document.addEventListener('mousedown', function (ev) {
    if (ev.target instanceof Element && ev.target.closest('[data-picker-list] [role="option"]')) ev.preventDefault();
  });
  document.addEventListener('click', function (ev) {
    var option = ev.target instanceof Element ? ev.target.closest('[data-picker-list] [role="option"]') : null;
    if (!option) return;
    var list = option.closest('[data-picker-list]');
    var input = list && document.querySelector('[data-picker="' + list.id + '"]');
    if (input) choose(input, option);
  });
  document.addEventListener('focusout', function (ev) {
    var input = ev.target instanceof Element && ev.target.hasAttribute('data-picker') ? ev.target : null;
    if (input) closePicker(input);
  });

  var PLACEHOLDER = /\$[a-z][a-z0-9_]*/g;
  function refreshLinkForm(form) {
    // The edit form's slug is shown disabled and never submitted, so it is found by its hook, not its name.
    var slugInput = form.querySelector('[data-slug-source]');
    var urlInput = form.querySelector('[data-url-input]');
    var slug = (slugInput && slugInput.value.trim()) || '';
    Array.prototype.forEach.call(form.querySelectorAll('[data-slug-preview]'), function (el) {
      el.textContent = slug || 'your-slug';
    });
    var hint = form.querySelector('[data-var-hint]');
    if (!hint || !urlInput) return;
    var seen = [];
    (urlInput.value.match(PLACEHOLDER) || []).forEach(function (n) {
      if (seen.indexOf(n) === -1) seen.push(n);
    });
    if (seen.length === 0) {
      hint.classList.add('hidden');
      return;
    }
    var kw = hint.getAttribute('data-keyword') || 'go';
    hint.querySelector('[data-var-names]').textContent = seen.join(', ');
    hint.querySelector('[data-var-example]').textContent =
      kw +
      '/' +
      (slug || 'my-link') +
      '/' +
      seen
        .map(function (n) {
          return n.slice(1);
        })
        .join('/');
    hint.classList.remove('hidden');
  }
  function refreshAll(scope) {
    Array.prototype.forEach.call((scope || document).querySelectorAll('form[data-link-form]'), refreshLinkForm);
  }
  document.addEventListener('input', function (ev) {
    var form = ev.target instanceof Element ? ev.target.closest('form[data-link-form]') : null;
    if (form) refreshLinkForm(form);
  });
  document.addEventListener('htmx:load', function (ev) {
    refreshAll(ev.detail.elt);
  });

  // The fill-in page's form (docs/links.md#fill-in-page) opens its address as a plain navigation:
  // a browser applies the CSP's form-action to every redirect of a form's submission, so the
  // resolver's redirect to another site would be stopped there; a navigation is not a submission.
  document.addEventListener('submit', function (ev) {
    // Read through Element's own methods: a variable named `action` would shadow the form's property.
    var form = ev.target instanceof HTMLFormElement && Element.prototype.hasAttribute.call(ev.target, 'data-fill-in') ? ev.target : null;
    if (!form || ev.defaultPrevented) return;
    ev.preventDefault();
    var to = new URL(Element.prototype.getAttribute.call(form, 'action') || '', window.location.href);
    to.search = new URLSearchParams(new FormData(form)).toString();
    window.location.assign(to.href);
  });

  // Toggle links (role="button", aria-pressed) are links without JavaScript; Space presses them too, as it would a button.
  document.addEventListener('keydown', function (ev) {
    var t = ev.target instanceof Element ? ev.target.closest('a[role="button"]') : null;
    if (t && ev.key === ' ') {
      ev.preventDefault();
      t.click();
    }
  });

  // The mobile menu button is a <label> (it works without JavaScript); make it keyboard-operable.
  document.addEventListener('keydown', function (ev) {
    var t = ev.target instanceof Element ? ev.target.closest('[data-drawer-toggle]') : null;
    if (t && (ev.key === 'Enter' || ev.key === ' ')) {
      ev.preventDefault();
      t.click();
    }
  });

  function init() {
    watchToasts();
    refreshAll(document);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
