/* Draws the billing page's usage chart from the canvas's data-usage attribute (the CSP allows no inline script). */
/* global document, window */
(function () {
  'use strict';
  var canvas = document.getElementById('usage-chart');
  if (!canvas || typeof window.Chart !== 'function') return;
  var days = JSON.parse(canvas.getAttribute('data-usage') || '[]');
  new window.Chart(canvas, {
    type: 'bar',
    data: {
      labels: days.map(function (day) {
        return day.date.slice(5);
      }),
      datasets: [
        {
          label: 'Cost per day (US dollars)',
          data: days.map(function (day) {
            return day.cost_cents / 100;
          }),
          backgroundColor: '#1d4ed8',
        },
      ],
    },
    options: { animation: false, maintainAspectRatio: false, scales: { y: { beginAtZero: true } } },
  });
})();
