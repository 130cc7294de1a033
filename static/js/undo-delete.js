// Deleting a link with Undo (docs/web-ui.md#deleting-with-undo). A delete removes the link's
// clicks, shares and tags for good, so the browser waits before asking for it: the row hides
// (on the link's page the page is dimmed under a note), a toast says "Deleted go/x" with an
// Undo button for a few seconds, and only when it closes is the DELETE sent, to the endpoint
// the form posts to without JavaScript. Undo shows the row again and sends nothing. A page
// being left or hidden sends what is still waiting at once, with `keepalive`, so a delete is
// never lost. A refused or failed request brings the row back with an error toast.
//
// Triggers are elements with `data-delete-link` (the DELETE endpoint), `data-delete-name`
// (the short link, for the messages) and either `data-delete-hide` (the id of the row to hide)
// or `data-delete-mark` (the id of the page to dim; its `[data-delete-note]` child is shown),
// and optionally `data-delete-then` (where to go once deleted). Their href is the
// confirm-delete page, which is what a click opens without JavaScript.
(function () {
  'use strict';

  var UNDO_MS = 6000;
  var pending = [];

  function targetOf(p) {
    return document.getElementById(p.target);
  }

  // Hides or shows what the pending delete concerns; run again after every HTMX swap, which
  // may have rendered the row afresh.
  function showPending(p, on) {
    var el = targetOf(p);
    if (!el) return;
    if (p.mode === 'hide') {
      el.hidden = on;
      return;
    }
    Array.prototype.forEach.call(el.children, function (child) {
      if (child.hasAttribute('data-delete-note')) {
        child.hidden = !on;
        return;
      }
      child.inert = on;
      child.classList.toggle('opacity-40', on);
    });
  }

  function toast(level, message, action) {
    var detail = { level: level, message: message, held: !!action, action: action };
    document.dispatchEvent(new CustomEvent('showToast', { detail: detail }));
    return detail.toast || null;
  }

  function removeToast(p) {
    if (p.toast && p.toast.parentNode) p.toast.parentNode.removeChild(p.toast);
    p.toast = null;
  }

  function forget(p) {
    clearTimeout(p.timer);
    var i = pending.indexOf(p);
    if (i !== -1) pending.splice(i, 1);
  }

  function visible(el) {
    return !!el && document.body.contains(el) && el.getClientRects().length > 0;
  }

  // Back to the control that deleted, or to its menu when it sits in a closed card menu
  // (whose content may still have boxes, so only a focus that took counts).
  function focusTrigger(p) {
    var el = p.trigger;
    if (!document.body.contains(el)) {
      var target = targetOf(p);
      el = target && target.querySelector('[data-delete-link]');
    }
    if (!el) return;
    var menu = el.closest('details');
    var candidates = [el, menu && menu.querySelector('summary')];
    for (var i = 0; i < candidates.length; i++) {
      if (!visible(candidates[i])) continue;
      candidates[i].focus();
      if (document.activeElement === candidates[i]) return;
    }
  }

  // Focus that sat on the Undo button moves to the nearest row still shown, else to the content.
  function focusNear(p) {
    var row = targetOf(p);
    var near = null;
    if (p.mode === 'hide' && row) {
      var candidates = [];
      for (var n = row.nextElementSibling; n; n = n.nextElementSibling) candidates.push(n);
      for (var m = row.previousElementSibling; m; m = m.previousElementSibling) candidates.push(m);
      for (var i = 0; i < candidates.length && !near; i++) {
        if (candidates[i].hidden) continue;
        near = Array.prototype.find.call(candidates[i].querySelectorAll('a[href], button, summary'), visible) || null;
      }
    }
    if (!near) {
      near = document.getElementById('main');
      if (near && !near.hasAttribute('tabindex')) near.setAttribute('tabindex', '-1');
    }
    if (near) near.focus();
  }

  function undo(p) {
    forget(p);
    removeToast(p);
    showPending(p, false);
    focusTrigger(p);
  }

  function refusal(p, response) {
    var said = '';
    try {
      var trigger = JSON.parse(response.headers.get('HX-Trigger') || '{}');
      said = (trigger.showToast && trigger.showToast.message) || '';
    } catch (e) {
      // Not JSON: the status speaks instead.
    }
    if (!said && response.status === 403) said = "You don't have permission to do that.";
    return 'Could not delete ' + p.name + '. ' + (said || 'Please try again.');
  }

  function failed(p, message) {
    showPending(p, false);
    toast('error', message, null);
  }

  // Sends the delete now: when the toast runs out, or with keepalive as the page goes away.
  function send(p, keepalive) {
    forget(p);
    var hadFocus = p.toast && p.toast.contains(document.activeElement);
    removeToast(p);
    if (hadFocus) focusNear(p);
    return fetch(p.url, {
      method: 'DELETE',
      credentials: 'same-origin',
      headers: { 'HX-Request': 'true' },
      keepalive: keepalive,
    }).then(
      function (response) {
        if (!response.ok) return failed(p, refusal(p, response));
        if (p.then) {
          window.location.assign(p.then);
          return;
        }
        var row = targetOf(p);
        if (p.mode === 'hide' && row && row.parentNode) row.parentNode.removeChild(row);
        // Lists that count their links refresh on this, so their counts and pager stay true.
        document.body.dispatchEvent(new CustomEvent('linkDeleted', { bubbles: true }));
      },
      function () {
        failed(p, 'Could not delete ' + p.name + '. Check your connection and try again.');
      },
    );
  }

  // The undo window runs while the pointer is off the toast, as other toasts wait for it.
  function arm(p) {
    clearTimeout(p.timer);
    p.armedAt = Date.now();
    p.timer = setTimeout(function () {
      send(p, false);
    }, p.remaining);
  }
  function pause(p) {
    clearTimeout(p.timer);
    p.remaining = Math.max(p.remaining - (Date.now() - p.armedAt), 0);
  }

  function start(trigger) {
    var p = {
      trigger: trigger,
      url: trigger.getAttribute('data-delete-link'),
      name: trigger.getAttribute('data-delete-name') || 'the link',
      mode: trigger.hasAttribute('data-delete-hide') ? 'hide' : 'mark',
      target: trigger.getAttribute('data-delete-hide') || trigger.getAttribute('data-delete-mark'),
      then: trigger.getAttribute('data-delete-then'),
      remaining: UNDO_MS,
      timer: 0,
      armedAt: 0,
      toast: null,
    };
    if (
      pending.some(function (q) {
        return q.url === p.url;
      })
    )
      return;
    var menu = trigger.closest('details');
    if (menu) menu.open = false;
    pending.push(p);
    showPending(p, true);
    p.toast = toast('success', 'Deleted ' + p.name, {
      label: 'Undo',
      name: 'Undo deleting ' + p.name,
      run: function () {
        undo(p);
      },
    });
    if (!p.toast) {
      // No toast area to offer Undo in: delete at once, as without JavaScript.
      send(p, false);
      return;
    }
    p.toast.addEventListener('mouseenter', function () {
      pause(p);
    });
    p.toast.addEventListener('mouseleave', function () {
      p.remaining = Math.max(p.remaining, 1500);
      arm(p);
    });
    var button = p.toast.querySelector('button');
    if (button) button.focus();
    arm(p);
  }

  document.addEventListener('click', function (ev) {
    var trigger = ev.target instanceof Element ? ev.target.closest('[data-delete-link]') : null;
    if (!trigger) return;
    ev.preventDefault();
    start(trigger);
  });

  // afterSwap fires on the new content in the same task as the swap, so a fresh copy of a
  // waiting row is hidden before the browser can paint it.
  document.addEventListener('htmx:afterSwap', function () {
    pending.forEach(function (p) {
      showPending(p, true);
    });
  });

  function flush() {
    pending.slice().forEach(function (p) {
      send(p, true);
    });
  }
  window.addEventListener('pagehide', flush);
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') flush();
  });
})();
