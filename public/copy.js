// Copy buttons: a button with data-copy="ID" copies the text of the element
// with that id. The page is complete without this script: the button stays
// hidden and the text can be selected by hand.
(function () {
  "use strict";
  if (!navigator.clipboard) return;
  // Once per button, however often a page includes this script.
  document.querySelectorAll("button[data-copy]:not([data-copy-on])").forEach(function (button) {
    button.setAttribute("data-copy-on", "");
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var label = button.textContent;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(source.textContent.trim()).then(function () {
        button.textContent = button.getAttribute("data-copied") || label;
        setTimeout(function () { button.textContent = label; }, 2000);
      });
    });
  });
})();
