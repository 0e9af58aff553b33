/* Mode-aware line forms: shows only the fields the chosen mode uses (data-modes), disabling the others so they are not sent. */
/* global document */
(function () {
  'use strict';
  function apply(form) {
    var select = form.querySelector('[data-mode-select]');
    if (!select) return;
    var mode = select.value;
    form.querySelectorAll('[data-modes]').forEach(function (field) {
      var shown = field.getAttribute('data-modes').split(' ').indexOf(mode) !== -1;
      field.hidden = !shown;
      field.querySelectorAll('input, select, textarea').forEach(function (input) {
        input.disabled = !shown;
      });
    });
  }
  document.querySelectorAll('form[data-mode-form]').forEach(function (form) {
    apply(form);
    form.addEventListener('change', function (event) {
      if (event.target.hasAttribute('data-mode-select')) apply(form);
    });
  });
})();
