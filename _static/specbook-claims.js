// specbook: the Claims page's table of every claim, made filterable and sortable by DataTables
// (vendored in _static/vendor/datatables; loaded on the Claims page only, see specbook._claims_page).
document.addEventListener("DOMContentLoaded", () => {
  const element = document.getElementById("specbook-claims-table");
  if (!element || typeof window.DataTable === "undefined") return;  // without it, a plain table
  const columns = [...element.querySelectorAll("thead th")].map(th => th.textContent.trim());
  const table = new window.DataTable(element, {
    order: [],  // the book's reading order until a reader sorts
    pageLength: 25,
    lengthMenu: [10, 25, 50, 100, { label: "All", value: -1 }],
    autoWidth: false,
    columnDefs: [
      { targets: columns.indexOf("Source kind"), visible: false },  // filtered by the select above
      { targets: columns.indexOf("Tolerance used"), orderSequence: ["desc", "asc"] },
    ],
    language: { search: "Text:", info: "_START_ to _END_ of _TOTAL_ claims", infoFiltered: "(of _MAX_)" },
  });
  for (const select of document.querySelectorAll(".specbook-claims-filter")) {
    select.addEventListener("change", () => {
      table.column(Number(select.dataset.column)).search(select.value, { exact: true }).draw();
    });
  }
  element.dataset.ready = "true";  // for the browser test: the table is set up
});
