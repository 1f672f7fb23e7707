// specbook: the Claims page's table of every claim, made filterable and sortable by DataTables
// (vendored in _static/vendor/datatables; loaded on the Claims page only, see specbook._claims_page).
document.addEventListener("DOMContentLoaded", () => {
  const element = document.getElementById("specbook-claims-table");
  if (!element || typeof window.DataTable === "undefined") return;  // without it, a plain table
  const columns = [...element.querySelectorAll("thead th")].map(th => th.textContent.trim());
  const table = new window.DataTable(element, {
    order: [],  // the book's reading order until a reader sorts
    pageLength: 25,
    lengthMenu: [10, 25, 50, 100, { label: "all", value: -1 }],
    autoWidth: false,
    // the Page and Source kind columns are hidden by the stylesheet (the cells beside show both): the
    // filters search them
    columnDefs: [{ targets: columns.indexOf("Tolerance used"), orderSequence: ["desc", "asc"] }],
    language: {
      search: "Text:", lengthMenu: "_MENU_ claims a page", info: "claims _START_ to _END_ of _TOTAL_",
      infoFiltered: "(filtered from _MAX_)", infoEmpty: "no claim", zeroRecords: "no claim matches",
    },
  });
  for (const select of document.querySelectorAll(".specbook-claims-filter")) {
    select.addEventListener("change", () => {
      table.column(Number(select.dataset.column)).search(select.value, { exact: true }).draw();
    });
  }
  element.dataset.ready = "true";  // the browser test waits for this
});
