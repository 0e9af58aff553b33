/*
 * Draws every usage chart of a page from its canvas's data attributes (the CSP allows no inline script): the
 * billing page's spend chart and the overview's calls, minutes, spend and delivery charts. `data-usage` holds the
 * days; `data-series` picks what is drawn (spend when absent).
 */
/* global document, window */
(function () {
  'use strict';
  if (typeof window.Chart !== 'function') return;
  var SERIES = {
    cost: [{ label: 'Spend per day (US dollars)', color: '#1d4ed8', value: cents }],
    calls: [{ label: 'Calls per day', color: '#1d4ed8', value: field('calls') }],
    minutes: [{ label: 'Billed minutes per day', color: '#0f766e', value: field('minutes') }],
    deliveries: [
      { label: 'Delivered', color: '#15803d', value: field('delivered') },
      { label: 'Failed', color: '#b42318', value: field('failed') },
    ],
  };
  function field(name) {
    return function (day) {
      return day[name] || 0;
    };
  }
  function cents(day) {
    return (day.cost_cents !== undefined ? day.cost_cents : day.costCents || 0) / 100;
  }
  Array.prototype.forEach.call(document.querySelectorAll('canvas[data-usage]'), function (canvas) {
    var days = JSON.parse(canvas.getAttribute('data-usage') || '[]');
    var series = SERIES[canvas.getAttribute('data-series') || 'cost'] || SERIES.cost;
    new window.Chart(canvas, {
      type: 'bar',
      data: {
        labels: days.map(function (day) {
          return day.date.slice(5);
        }),
        datasets: series.map(function (one) {
          return { label: one.label, data: days.map(one.value), backgroundColor: one.color };
        }),
      },
      options: {
        animation: false,
        maintainAspectRatio: false,
        plugins: { legend: { display: series.length > 1 } },
        scales: { x: { stacked: series.length > 1 }, y: { beginAtZero: true, stacked: series.length > 1 } },
      },
    });
  });
})();
