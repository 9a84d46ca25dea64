// jobq dashboard: relative times, live refresh of <main>, confirmations. No framework, no build.
(function () {
  "use strict";
  var body = document.body;
  // The database's clock, not the browser's: offset = database now - browser now at load.
  var offset = Date.parse(body.dataset.now) - Date.now();
  var refresh = parseInt(body.dataset.refresh, 10) || 5000;
  var paused = false;

  function human(ms) {
    var s = Math.floor(Math.abs(ms) / 1000);
    if (s < 60) return s + "s";
    if (s < 3600) return Math.floor(s / 60) + "m " + (s % 60) + "s";
    if (s < 172800) return Math.floor(s / 3600) + "h " + Math.floor((s % 3600) / 60) + "m";
    return Math.floor(s / 86400) + "d " + Math.floor((s % 86400) / 3600) + "h";
  }
  function relTimes() {
    var now = Date.now() + offset;
    document.querySelectorAll("time[data-rel]").forEach(function (t) {
      var at = Date.parse(t.getAttribute("datetime"));
      if (isNaN(at)) return;
      var d = now - at;
      t.textContent = Math.abs(d) < 1000 ? "now" : d > 0 ? human(d) + " ago" : "in " + human(d);
    });
  }
  function busy(main) {
    var a = document.activeElement;
    return paused || document.hidden || (a && main.contains(a) && /INPUT|SELECT|TEXTAREA/.test(a.tagName));
  }
  function tick() {
    var main = document.getElementById("main");
    if (!main || main.dataset.live !== "on" || busy(main)) return;
    fetch(location.href, { headers: { "X-Jobq-Fragment": "main" }, credentials: "same-origin" })
      .then(function (r) {
        if (!r.ok || r.redirected) return null;
        var now = r.headers.get("X-Jobq-Now");
        if (now) {
          offset = Date.parse(now) - Date.now();
          var st = document.querySelector("#live-status time");
          if (st) st.setAttribute("datetime", now);
        }
        return r.text();
      })
      .then(function (html) {
        if (html !== null && html !== undefined && !busy(main)) { main.innerHTML = html; relTimes(); }
      })
      .catch(function () {});
  }
  document.addEventListener("submit", function (e) {
    var msg = e.target.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) e.preventDefault();
  });
  var toggle = document.getElementById("live-toggle");
  if (toggle) toggle.addEventListener("click", function () {
    paused = !paused;
    toggle.textContent = paused ? "resume live refresh" : "pause live refresh";
  });
  relTimes();
  setInterval(relTimes, 1000);
  setInterval(tick, refresh);
})();
