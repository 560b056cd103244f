// Rows of words (delivery zones, a product's details, return rules): "Add a row" copies
// the table's last row with its boxes cleared (a list back to its first choice);
// "Remove" drops a row. A table's only row is cleared instead of dropped, so there is
// always a row to type in (a cleared row is a removed row).
function clearRow(row) {
  row.querySelectorAll("input").forEach((input) => { input.value = ""; input.removeAttribute("id"); });
  row.querySelectorAll("select").forEach((select) => { select.selectedIndex = 0; select.removeAttribute("id"); });
}

document.addEventListener("click", (event) => {
  const add = event.target.closest(".rows-add");
  const remove = event.target.closest(".rows-remove");
  if (add) {
    const body = add.previousElementSibling.querySelector("tbody");
    const rows = body.querySelectorAll(".rows-row");
    const copy = rows[rows.length - 1].cloneNode(true);
    clearRow(copy);
    body.appendChild(copy);
    copy.querySelector("input, select").focus();
  } else if (remove) {
    const row = remove.closest(".rows-row");
    if (row.parentElement.querySelectorAll(".rows-row").length > 1) {
      row.remove();
    } else {
      clearRow(row);
    }
  }
});
