/*
 * The portal's small behaviours, served from this origin (the CSP allows no inline script), each an enhancement of
 * a page that works without it: the phone menu folds the navigation under a button; a copy button copies the text
 * of the element its data-copy names (a one-time secret, a ready Authorization header) and says so.
 */
/* global document, navigator */
(function () {
  'use strict';
  document.documentElement.classList.add('js');

  function ready(run) {
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run);
    else run();
  }

  ready(function () {
    var menu = document.querySelector('.menu-button');
    var nav = document.getElementById('portal-nav');
    if (menu && nav) {
      menu.hidden = false;
      menu.addEventListener('click', function () {
        var open = menu.getAttribute('aria-expanded') !== 'true';
        menu.setAttribute('aria-expanded', String(open));
        nav.classList.toggle('open', open);
      });
    }

    Array.prototype.forEach.call(document.querySelectorAll('button[data-copy]'), function (button) {
      var target = document.getElementById(button.getAttribute('data-copy'));
      var status = document.getElementById(button.getAttribute('data-copy') + '-copied');
      if (!target || !navigator.clipboard) return;
      button.hidden = false;
      button.addEventListener('click', function () {
        navigator.clipboard.writeText((target.innerText || target.textContent).trim()).then(
          function () {
            if (status) status.textContent = 'Copied to the clipboard.';
          },
          function () {
            if (status) status.textContent = 'Could not copy: select the text and copy it yourself.';
          },
        );
      });
    });
  });
})();
