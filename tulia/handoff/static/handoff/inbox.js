/* The live agent inbox: short polling of a tiny version endpoint (never a long-lived
 * connection on the sync web workers), counts in the header on every admin page, a sound
 * and a browser notification when a customer starts waiting, the desk and the queue
 * refreshed in place when something changed, and "/" canned replies in the composer. */
(function () {
  "use strict";
  var POLL_MS = 1500, HIDDEN_POLL_MS = 4000, IDLE_MS = 5 * 60 * 1000;
  var badge = document.getElementById("inbox-badge");
  if (!badge) return;
  var desk = document.getElementById("inbox-desk");
  var queue = document.getElementById("changelist") && /\/handoff\/handoffticket\/$/.test(location.pathname);
  var version = (desk && desk.dataset.version) || badge.dataset.version;
  var waiting = parseInt(badge.dataset.waiting || "0", 10);
  var lastInput = Date.now();

  ["keydown", "pointerdown", "pointermove", "scroll", "touchstart"].forEach(function (name) {
    window.addEventListener(name, function () { lastInput = Date.now(); }, { passive: true });
  });

  function beep() {
    try {
      var audio = new (window.AudioContext || window.webkitAudioContext)();
      var tone = audio.createOscillator(), gain = audio.createGain();
      tone.frequency.value = 880; gain.gain.value = 0.15;
      tone.connect(gain); gain.connect(audio.destination);
      tone.start(); tone.stop(audio.currentTime + 0.25);
    } catch (e) { /* no audio device: the notification and the badge still tell */ }
  }

  function alertWaiting(count) {
    beep();
    if ("Notification" in window && Notification.permission === "granted") {
      var note = new Notification("A customer is waiting", {
        body: count + " waiting in the inbox", tag: "tulia-inbox", renotify: true
      });
      note.onclick = function () { window.focus(); location.href = badge.href; };
    }
  }

  var alertsButton = document.getElementById("inbox-alerts");
  if (alertsButton && "Notification" in window && Notification.permission === "default") {
    alertsButton.hidden = false;
    alertsButton.addEventListener("click", function () {
      Notification.requestPermission().then(function () { alertsButton.hidden = true; });
    });
  }

  function showCounts(data) {
    badge.querySelectorAll("[data-count]").forEach(function (el) {
      el.textContent = data[el.dataset.count];
    });
    badge.classList.toggle("is-waiting", data.waiting > 0);
    if (data.waiting > waiting) alertWaiting(data.waiting);
    waiting = data.waiting;
    document.querySelectorAll("[data-presence]").forEach(function (el) { el.textContent = data.presence; });
  }

  function scrollThread() {
    var thread = document.querySelector("[data-region=thread]");
    if (thread) thread.scrollTop = thread.scrollHeight;
  }

  /* Swap the page's live regions for fresh ones (from the poll's answer on a desk, else
   * from the page fetched again), keeping what the agent is typing. */
  function swapFrom(html) {
    var fresh = new DOMParser().parseFromString(html, "text/html");
    var selectors = desk ? ["[data-region]"] : ["#changelist-form"];
    selectors.forEach(function (selector) {
      var olds = document.querySelectorAll(selector), news = fresh.querySelectorAll(selector);
      olds.forEach(function (old, i) {
        if (!news[i] || news[i].innerHTML === old.innerHTML) return;
        var box = old.querySelector("textarea"), typed = box ? box.value : "";
        var focused = box && document.activeElement === box;
        old.innerHTML = news[i].innerHTML;
        var again = old.querySelector("textarea");
        if (again && typed) again.value = typed;
        if (again && focused) again.focus();
      });
    });
    if (desk) { scrollThread(); wireComposer(); }
  }

  function refreshPage() {
    return fetch(location.href, { credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) { if (html) swapFrom(html); });
  }

  function poll() {
    var params = new URLSearchParams();
    if (desk) {
      params.set("conversation", desk.dataset.conversation);
      params.set("ticket", desk.dataset.ticket);
    }
    params.set("active", !document.hidden && Date.now() - lastInput < IDLE_MS ? "1" : "0");
    fetch(badge.dataset.live + "?" + params, {
      credentials: "same-origin", headers: { "If-None-Match": '"' + version + '"' }
    }).then(function (r) {
      if (r.status !== 200) return null;
      return r.json().then(function (data) {
        var changed = data.version !== version;
        version = data.version;
        showCounts(data);
        if (changed && data.regions) swapFrom(data.regions);
        else if (changed && (desk || queue)) return refreshPage();
      });
    }).catch(function () { /* offline for a moment: the next poll tries again */ })
      .then(function () { setTimeout(poll, document.hidden ? HIDDEN_POLL_MS : POLL_MS); });
  }

  /* Canned replies: "/" then a few letters of the name; Enter or Tab takes the first match. */
  function wireComposer() {
    var box = document.getElementById("inbox-body"), list = document.getElementById("inbox-canned");
    var data = document.getElementById("inbox-canned-data");
    if (!box || !list || !data || box.dataset.wired) return;
    box.dataset.wired = "1";
    var canned = JSON.parse(data.textContent || "[]");
    function matches() {
      var m = /^\/(\S*)$/.exec(box.value);
      if (!m) return [];
      var q = m[1].toLowerCase();
      return canned.filter(function (c) { return c.name.indexOf(q) === 0 || c.title.toLowerCase().indexOf(q) !== -1; });
    }
    function take(c) { box.value = c.body; list.hidden = true; box.focus(); }
    function render() {
      var found = matches();
      list.innerHTML = "";
      found.forEach(function (c, i) {
        var option = document.createElement("button");
        option.type = "button"; option.setAttribute("role", "option");
        option.setAttribute("aria-selected", i === 0 ? "true" : "false");
        option.textContent = "/" + c.name + " — " + c.body.slice(0, 60);
        option.addEventListener("click", function () { take(c); });
        list.appendChild(option);
      });
      list.hidden = found.length === 0;
    }
    box.addEventListener("input", render);
    box.addEventListener("keydown", function (e) {
      var found = matches();
      if ((e.key === "Enter" || e.key === "Tab") && found.length) { e.preventDefault(); take(found[0]); }
      else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); box.form.querySelector("[value=reply],[value=note]").click(); }
    });
  }

  if (desk) { scrollThread(); wireComposer(); }
  setTimeout(poll, POLL_MS);
})();
