/* snowid page: live results as you type. Plain JavaScript, no build step, no inline code
   (the page's Content-Security-Policy allows only this file).
   The server renders everything; this script fetches the same GET URL the form would
   load and swaps in the result and the field messages. While a field is being typed, a
   bad value does not flash an error: the last good result stays, dimmed and marked out of
   date, and the message appears after a pause or when the field is left. */
(function () {
  "use strict";

  var PAUSE_MS = 800;     // no key for this long: the value is settled, show its error
  var COPIED_MS = 2500;   // how long "Copied" stays beside a copy button
  var DEBOUNCE_MS = 120;  // fetch once typing slows down
  var DAY = 86400;
  // Largest unit first: the same table as _UNITS in snowid/web/_view.py (the server's fallback;
  // tests/web/test_view.py checks that the two agree).
  var UNITS = [["year", 365.2425 * DAY], ["month", 30.436875 * DAY], ["day", DAY],
    ["hour", 3600], ["minute", 60], ["second", 1]];

  function lang() { return document.documentElement.lang || "en"; }
  function pad(n, width) { return String(n).padStart(width, "0"); }

  // A date as "YYYY-MM-DD<sep>HH:MM:SS.mmm", in UTC or in the browser's time zone.
  function stamp(d, utc, sep) {
    var p = utc
      ? [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()]
      : [d.getFullYear(), d.getMonth() + 1, d.getDate(), d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds()];
    return pad(p[0], 4) + "-" + pad(p[1], 2) + "-" + pad(p[2], 2) + sep +
      pad(p[3], 2) + ":" + pad(p[4], 2) + ":" + pad(p[5], 2) + "." + pad(p[6], 3);
  }

  // --- times -------------------------------------------------------------------------

  function relative(ms) {
    if (!window.Intl || !Intl.RelativeTimeFormat) { return null; }
    var seconds = (ms - Date.now()) / 1000;
    var size = Math.abs(seconds);
    if (size < 1) { return new Intl.RelativeTimeFormat(lang(), { numeric: "auto" }).format(0, "second"); }
    for (var i = 0; i < UNITS.length; i++) {
      if (size >= UNITS[i][1]) {
        var count = Math.floor(size / UNITS[i][1]);
        return new Intl.RelativeTimeFormat(lang(), { numeric: "always" })
          .format(seconds < 0 ? -count : count, UNITS[i][0]);
      }
    }
    return null;
  }

  function relativeTimes(root) {
    root.querySelectorAll(".rel[data-ms]").forEach(function (el) {
      var text = relative(Number(el.getAttribute("data-ms")));
      if (text) { el.textContent = text; }
    });
  }

  function localTimes(root) {
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
    root.querySelectorAll("time.local[data-ms]").forEach(function (el) {
      var d = new Date(Number(el.getAttribute("data-ms")));
      if (isNaN(d.getTime())) { return; }
      el.textContent = stamp(d, false, " ");
      var z = el.parentElement && el.parentElement.querySelector(".zone");
      if (z && zone) { z.textContent = "(" + zone + ")"; }
    });
  }

  // --- copying -----------------------------------------------------------------------

  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";  /* a class, not a style: the CSP allows no inline style */
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
    document.body.removeChild(area);
  }

  function copyButtons(root) {
    root.querySelectorAll("button.copy").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        if (button.disabled) { return; }
        // The link is read when pressed: the address follows the form as you type, unless
        // the result names its own: a blank timestamp's link has the millisecond actually
        // used (data-copy-path), the decoder's names its layout (data-href), so the copy
        // reads the same anywhere.
        var path = button.getAttribute("data-copy-path") || button.getAttribute("data-href");
        var text = button.hasAttribute("data-copy-link")
          ? (path ? new URL(path, location.href).href : location.href)
          : button.getAttribute("data-copy");
        var status = button.parentElement.querySelector(".copied");
        var timer = null;
        function done() {
          if (!status) { return; }
          status.textContent = button.getAttribute("data-done");
          clearTimeout(timer);
          // data-copied-ms on <body> overrides the time (the browser tests shorten it).
          var ms = Number(document.body.getAttribute("data-copied-ms")) || COPIED_MS;
          timer = setTimeout(function () { status.textContent = ""; }, ms);
        }
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
        } else { fallbackCopy(text); done(); }
      });
    });
  }

  function enhance(root) { localTimes(root); relativeTimes(root); copyButtons(root); }

  function announce(text) {
    var region = document.getElementById("announce");
    if (region && text) { region.textContent = text; }
  }

  // --- the date-and-time input beside the millisecond field ----------------------------

  // An ISO 8601 date, maybe with a time (to the ms, "T" or a space before it) and a "Z".
  // A text field, not datetime-local: that one shows the browser's locale (26.10.2022).
  var ISO_DATE = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d{1,9}))?)?)?\s*(Z)?$/i;

  // The date typed as Unix ms, in UTC or the browser's zone; NaN when it is no date
  // (2022-13-45, 24:00, 26.10.2022), never a date the calendar moved it to.
  function readIso(text, utc) {
    var m = ISO_DATE.exec(text.trim());
    if (!m) { return NaN; }
    var n = m.slice(1, 7).map(function (x) { return x === undefined ? 0 : Number(x); });
    var ms = m[7] ? Number((m[7] + "00").slice(0, 3)) : 0;
    var check = new Date(0);  // setUTCFullYear, not Date.UTC: that reads year 22 as 1922
    check.setUTCFullYear(n[0], n[1] - 1, n[2]);
    check.setUTCHours(n[3], n[4], n[5], ms);
    if (check.getUTCFullYear() !== n[0] || check.getUTCMonth() !== n[1] - 1 || check.getUTCDate() !== n[2] ||
        check.getUTCHours() !== n[3] || check.getUTCMinutes() !== n[4] || check.getUTCSeconds() !== n[5]) {
      return NaN;
    }
    if (utc || m[8]) { return check.getTime(); }
    var local = new Date(0);
    local.setFullYear(n[0], n[1] - 1, n[2]);
    local.setHours(n[3], n[4], n[5], ms);
    return local.getTime();
  }

  function dateInput(form, changed) {
    var box = form.querySelector("[data-when]");
    var ms = form.querySelector("[name='timestamp']");
    if (!box || !ms) { return function () {}; }
    var when = box.querySelector("input");
    var zone = box.querySelector("select");
    var error = box.querySelector(".error");
    var errorTimer = null;
    box.hidden = false;
    try {
      var name = Intl.DateTimeFormat().resolvedOptions().timeZone;
      var local = zone.querySelector("option[value='local']");
      if (name && local) { local.textContent += " (" + name + ")"; }
    } catch (e) { /* the plain label stays */ }

    function utc() { return zone.value === "utc"; }

    // A date that is no date: said (naming it) once typing pauses or the field is left;
    // the millisecond field keeps its value meanwhile.
    function refuse(text) {
      clearTimeout(errorTimer);
      if (!error) { return; }
      error.textContent = text ? error.getAttribute("data-message").replace("{value}", text) : "";
      error.hidden = !text;
      if (text) { when.setAttribute("aria-invalid", "true"); } else { when.removeAttribute("aria-invalid"); }
    }

    function show() {  // the millisecond field is the source of truth
      if (document.activeElement === when) { return; }
      refuse("");
      var text = ms.value.trim();
      if (!/^\d{1,15}$/.test(text)) { when.value = ""; return; }
      var d = new Date(Number(text));
      if (isNaN(d.getTime()) || d.getUTCFullYear() > 9999) { when.value = ""; return; }
      when.value = stamp(d, utc(), "T");
    }

    function check(now) {
      var text = when.value.trim();
      var value = text ? readIso(text, utc()) : NaN;
      if (!text || !isNaN(value)) { refuse(""); return value; }
      clearTimeout(errorTimer);
      if (now) { refuse(text); } else {
        var pause = Number(form.getAttribute("data-pause-ms")) || PAUSE_MS;
        errorTimer = setTimeout(function () { refuse(text); }, pause);
      }
      return NaN;
    }

    when.addEventListener("input", function () {
      var value = check(false);
      if (!isNaN(value)) { ms.value = String(value); changed(); }
    });
    when.addEventListener("change", function () { check(true); });
    zone.addEventListener("change", function () {
      // a date that is no date stays as typed, with its message; else the new zone shows
      if (!when.value.trim() || !isNaN(readIso(when.value, utc()))) { show(); }
    });
    ms.addEventListener("input", show);
    show();
    return show;
  }

  // --- keeping things in sight ---------------------------------------------------------

  function smooth() {
    return !(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  }

  function viewHeight() {
    return window.visualViewport ? window.visualViewport.height : window.innerHeight;
  }

  // The answer to a paste or a press of the button, brought into sight when it is not (on
  // a phone the decoder's result starts far below the field). Focus stays where it is.
  function bringIntoSight(el, where) {
    if (!el) { return; }
    var box = el.getBoundingClientRect();
    var height = viewHeight();
    var seen = where === "nearest" ? box.top >= 0 && box.bottom <= height
      : box.top >= 0 && box.top <= height * 0.6;
    if (!seen) { el.scrollIntoView({ block: where, behavior: smooth() ? "smooth" : "auto" }); }
  }

  // On a phone the generator's live result is pinned to the bottom of the screen: a field
  // that gets focus under it is moved up above it (style.css's scroll-padding does this for
  // the browser's own scrolling; this covers a field it counts as in view).
  function keepAbovePeek(form) {
    var peek = form.querySelector("[data-peek]");
    if (!peek) { return; }
    form.addEventListener("focusin", function (event) {
      var field = event.target;
      requestAnimationFrame(function () {
        if (peek.hidden || peek.contains(field) || getComputedStyle(peek).position !== "sticky") { return; }
        var box = field.getBoundingClientRect();
        var cover = peek.getBoundingClientRect();
        if (box.bottom > cover.top - 8 && box.top < cover.bottom) {
          window.scrollBy({ top: box.bottom - cover.top + 16, behavior: "auto" });
        }
      });
    });
  }

  // --- the live form -----------------------------------------------------------------

  function liveForm(form) {
    var counter = 0;
    var fetchTimer = null;
    var pauseTimer = null;
    var settled = true;   // false while keys are being pressed
    var pending = null;   // the newest answer with errors, waiting for a pause
    // A form with data-reveal brings its next answer into sight after a paste or a press
    // of its button; a key typed since then means the visitor is still typing: no move.
    var revealing = form.hasAttribute("data-reveal");
    var revealNext = false;
    var shownHtml = resultHtml;  // the result on screen, as the server sent it

    function url() {
      var params = new URLSearchParams();
      new FormData(form).forEach(function (value, name) {
        if (name !== "now") { params.append(name, String(value)); }
      });
      return form.getAttribute("action") + "?" + params.toString();
    }

    function showErrors(doc) {
      form.querySelectorAll("p.error[data-field]").forEach(function (p) {
        var name = p.getAttribute("data-field");
        var other = doc.getElementById("err-" + name);
        var input = form.querySelector("[name='" + name + "']");
        var message = other && !other.hidden ? other.textContent : "";
        // The server's message as it is, with its fix button when it has one.
        p.replaceChildren.apply(p, message ? Array.prototype.map.call(other.childNodes, function (n) {
          return document.importNode(n, true);
        }) : []);
        p.className = message ? other.className : "error";
        p.hidden = !message;
        if (input) {
          if (message) { input.setAttribute("aria-invalid", "true"); } else { input.removeAttribute("aria-invalid"); }
          input.closest(".field").classList.toggle("invalid", Boolean(message));
        }
      });
    }

    function syncLanguageLinks(doc) {  // the switch keeps what is typed
      document.querySelectorAll("nav.langs a[data-lang]").forEach(function (a) {
        var fresh = doc.querySelector("nav.langs a[data-lang='" + a.getAttribute("data-lang") + "']");
        if (fresh) { a.setAttribute("href", fresh.getAttribute("href")); }
      });
    }

    // Out of date: the result is dimmed and nothing in it can be copied until it is fresh.
    function markStale(slot, stale) {
      slot.classList.toggle("stale", stale);
      slot.querySelectorAll(".stale-note").forEach(function (note) { note.hidden = !stale; });
      slot.querySelectorAll("button.copy").forEach(function (button) { button.disabled = stale; });
      var peek = form.querySelector("[data-peek]");
      if (peek) { peek.classList.toggle("stale", stale); }
    }

    function showPeek(doc) {  // the compact result beside the fields
      var peek = form.querySelector("[data-peek]");
      var fresh = doc.querySelector("[data-peek]");
      if (!peek || !fresh) { return; }
      peek.replaceChildren.apply(peek, Array.prototype.map.call(fresh.childNodes, function (n) {
        return document.importNode(n, true);
      }));
      peek.hidden = fresh.hidden;
    }

    function reveal() {
      if (!pending) { return; }
      var doc = pending;
      pending = null;
      showErrors(doc);
      if (revealNext) {
        revealNext = false;
        bringIntoSight(form.querySelector("p.error[data-field]:not([hidden])"), "nearest");
      }
      var summary = doc.querySelector("[data-announce-errors]");
      announce(summary && summary.getAttribute("data-announce-errors"));
    }

    function apply(doc) {
      var fresh = doc.getElementById("result");
      var slot = document.getElementById("result");
      syncLanguageLinks(doc);
      if (!fresh || !slot) { return; }
      // The decoder's explanation follows the layout of the result.
      var explain = doc.getElementById("explain");
      var shown = document.getElementById("explain");
      if (explain && shown && explain.getAttribute("data-layout") !== shown.getAttribute("data-layout")) {
        shown.replaceWith(document.importNode(explain, true));
      }
      if (doc.querySelector("p.error[data-field]:not([hidden])") === null) {
        pending = null;
        // The same answer as the one on screen (a value typed over itself, a field left
        // and come back to): nothing is redrawn or announced again, so a "Copied" status,
        // a selection or the focus in the result stays where it was.
        var same = fresh.innerHTML === shownHtml;
        if (!same) { slot.innerHTML = fresh.innerHTML; shownHtml = fresh.innerHTML; }
        showPeek(doc);
        markStale(slot, false);
        if (!same) { enhance(slot); }
        showErrors(doc);
        if (revealNext) { revealNext = false; bringIntoSight(slot, "start"); }
        var section = slot.querySelector("[data-announce]");
        if (!same) { announce(section && section.getAttribute("data-announce")); }
        return;
      }
      // Errors: keep the last good result, dimmed; say what is wrong once typing pauses.
      if (slot.querySelector("[data-announce]")) {
        markStale(slot, true);
      } else {
        slot.innerHTML = fresh.innerHTML;
        shownHtml = fresh.innerHTML;
      }
      pending = doc;
      if (settled) { reveal(); }
    }

    function update() {
      var target = url();
      var mine = ++counter;
      fetch(target, { headers: { "Accept": "text/html" }, credentials: "same-origin" })
        .then(function (response) { return response.text(); })
        .then(function (html) {
          if (mine !== counter) { return; }  // a newer request is on its way
          apply(new DOMParser().parseFromString(html, "text/html"));
          history.replaceState(null, "", target);
          form.setAttribute("data-applied", String(mine));  // which request's answer is in (tests)
        })
        .catch(function () { /* offline: the submit button still works */ });
    }

    function typed() {
      settled = false;
      clearTimeout(pauseTimer);
      // data-pause-ms on the form overrides the pause (the browser tests lengthen it).
      var pause = Number(form.getAttribute("data-pause-ms")) || PAUSE_MS;
      pauseTimer = setTimeout(function () { settled = true; reveal(); }, pause);
      clearTimeout(fetchTimer);
      fetchTimer = setTimeout(update, DEBOUNCE_MS);
    }

    function now() {  // settled at once: a button, not typing
      clearTimeout(pauseTimer);
      settled = true;
      clearTimeout(fetchTimer);
      update();
    }

    function forgetRemembered() {  // the decoder's layout, once the visitor picks one
      var kept = form.querySelector("input[name='remembered']");
      if (kept) { kept.remove(); }
    }

    var showDate = dateInput(form, typed);
    form.querySelectorAll("textarea").forEach(function (area) {  // grows with its lines
      area.addEventListener("input", function () {
        area.rows = Math.min(Math.max(area.value.split("\n").length, 2), 8);
      });
    });
    form.addEventListener("input", function (event) {
      if (!event.target || !event.target.name) { return; }
      // A layout clicked is the visitor's own choice now, no longer only the remembered one.
      if (event.target.type === "radio") { forgetRemembered(); }
      // A choice from a list (the layout) is settled at once; typing waits for a pause.
      if (event.target.tagName === "SELECT" || event.target.type === "radio") { now(); } else { typed(); }
    });
    form.addEventListener("paste", function () { revealNext = revealing; });
    form.addEventListener("keydown", function () { revealNext = false; });
    keepAbovePeek(form);
    form.addEventListener("focusout", function () { clearTimeout(pauseTimer); settled = true; reveal(); });
    form.addEventListener("submit", function (event) { event.preventDefault(); revealNext = revealing; now(); });
    // A fix button in a message (name="fix", its value the query it sets): put those
    // values in the fields, then update at once; focus goes to the field it fixed.
    form.addEventListener("click", function (event) {
      var button = event.target && event.target.closest ? event.target.closest("button[name='fix']") : null;
      if (!button) { return; }
      event.preventDefault();
      var first = null;
      new URLSearchParams(button.value).forEach(function (value, name) {
        var input = form.querySelector("[name='" + name + "']");
        if (input && input.type === "radio") {  // a choice: check the one with that value
          input = form.querySelector("[name='" + name + "'][value='" + value + "']");
          if (input) { input.checked = true; forgetRemembered(); }
        } else if (input) { input.value = value; }
        if (input) { first = first || input; }
      });
      showDate();
      if (first) { first.focus(); }
      now();
    });
    form.querySelectorAll("[data-now]").forEach(function (button) {
      button.addEventListener("click", function (event) {
        event.preventDefault();
        var input = form.querySelector("[name='timestamp']");
        if (input) { input.value = String(Date.now()); }
        showDate();
        now();
      });
    });
  }

  // The range page's zone picker: the visitor's own zone, by its name, beside UTC.
  function zonePicker(select) {
    var name = "";
    try { name = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { name = ""; }
    if (!name || name === "UTC" || select.querySelector("option[value='" + name + "']")) { return; }
    var option = document.createElement("option");
    option.value = name;
    option.textContent = select.getAttribute("data-local-label") + " (" + name + ")";
    select.appendChild(option);
  }

  var resultHtml = null;  // the page's result as sent, before enhance() added to it

  function start() {
    document.documentElement.classList.add("js");
    document.querySelectorAll("select[data-zone]").forEach(zonePicker);
    var result = document.getElementById("result");
    resultHtml = result ? result.innerHTML : null;
    enhance(document);
    document.querySelectorAll("form[data-live]").forEach(liveForm);
    // Relative times drift: "5 seconds ago" becomes "1 minute ago".
    setInterval(function () { relativeTimes(document); }, 30000);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else { start(); }
})();
