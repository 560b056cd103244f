// Opening hours on the shop settings page: "Add a window" copies the day's last row with
// its times cleared; "Remove" drops a row. A day's only row is cleared instead of
// dropped, so there is always a row to type in (a cleared row is a removed window).
document.addEventListener("click", (event) => {
  const add = event.target.closest(".hours-add");
  const remove = event.target.closest(".hours-remove");
  if (add) {
    const rows = add.parentElement.querySelectorAll(".hours-window");
    const copy = rows[rows.length - 1].cloneNode(true);
    copy.querySelectorAll("input").forEach((input) => { input.value = ""; input.removeAttribute("id"); });
    add.before(copy);
    copy.querySelector("input").focus();
  } else if (remove) {
    const row = remove.closest(".hours-window");
    if (row.parentElement.querySelectorAll(".hours-window").length > 1) {
      row.remove();
    } else {
      row.querySelectorAll("input").forEach((input) => { input.value = ""; });
    }
  }
});
