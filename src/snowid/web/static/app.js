/* snowid page: live results as you type. Plain JavaScript, no build step.
   The server renders everything; this script fetches the same GET URL the form
   would load and swaps in the result and the field messages. */
(function () {
  "use strict";

  function pad(n, width) { return String(n).padStart(width, "0"); }

  function localTimes(root) {
    var zone = "";
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (e) { zone = ""; }
    root.querySelectorAll("time.local[data-ms]").forEach(function (el) {
      var d = new Date(Number(el.getAttribute("data-ms")));
      if (isNaN(d.getTime())) { return; }
      el.textContent = d.getFullYear() + "-" + pad(d.getMonth() + 1, 2) + "-" + pad(d.getDate(), 2) +
        " " + pad(d.getHours(), 2) + ":" + pad(d.getMinutes(), 2) + ":" + pad(d.getSeconds(), 2) +
        "." + pad(d.getMilliseconds(), 3);
      var z = el.parentElement && el.parentElement.querySelector(".zone");
      if (z && zone) { z.textContent = "(" + zone + ")"; }
    });
  }

  function copyButtons(root) {
    root.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var text = button.getAttribute("data-copy");
        var status = button.parentElement.querySelector(".copied");
        function done() { if (status) { status.textContent = button.getAttribute("data-done"); } }
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
        } else { fallbackCopy(text); done(); }
      });
    });
  }

  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";  /* a class, not a style: the page's CSP allows no inline style */
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
    document.body.removeChild(area);
  }

  function enhance(root) { localTimes(root); copyButtons(root); }

  function liveForm(form) {
    var counter = 0;
    var timer = null;

    function url() {
      var params = new URLSearchParams();
      new FormData(form).forEach(function (value, name) {
        if (name !== "now") { params.append(name, String(value)); }
      });
      return form.getAttribute("action") + "?" + params.toString();
    }

    function apply(doc) {
      var fresh = doc.getElementById("result");
      var slot = document.getElementById("result");
      if (fresh && slot) { slot.innerHTML = fresh.innerHTML; enhance(slot); }
      form.querySelectorAll("p.error[data-field]").forEach(function (p) {
        var name = p.getAttribute("data-field");
        var other = doc.getElementById("err-" + name);
        var input = form.querySelector("[name='" + name + "']");
        var message = other && !other.hidden ? other.textContent : "";
        p.textContent = message;
        p.hidden = !message;
        if (input) {
          if (message) { input.setAttribute("aria-invalid", "true"); } else { input.removeAttribute("aria-invalid"); }
          input.closest(".field").classList.toggle("invalid", Boolean(message));
        }
      });
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
        })
        .catch(function () { /* offline: the submit button still works */ });
    }

    function soon() { clearTimeout(timer); timer = setTimeout(update, 120); }

    form.addEventListener("input", soon);
    form.addEventListener("submit", function (event) { event.preventDefault(); clearTimeout(timer); update(); });
    form.querySelectorAll("[data-now]").forEach(function (button) {
      button.addEventListener("click", function (event) {
        event.preventDefault();
        var input = form.querySelector("[name='timestamp']");
        if (input) { input.value = String(Date.now()); }
        clearTimeout(timer);
        update();
      });
    });
  }

  function start() {
    document.documentElement.classList.add("js");
    enhance(document);
    document.querySelectorAll("form[data-live]").forEach(liveForm);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else { start(); }
})();
