// The demo shop as a single-page app: it reaches the protected API through QueueGate with the
// client the gateway serves, from joining the line to placing the order.
import { QueueClient, QueueError } from '/queue/client.js';

const productId = new URLSearchParams(location.search).get('product') || '42';
const productUrl = '/api/products/' + encodeURIComponent(productId);
const json = { Accept: 'application/json' };
const $ = (id) => document.getElementById(id);
let waiting = null;

const queue = new QueueClient({
  onStatus(place) {
    $('line').hidden = false;
    if (place.status === 'PRE_QUEUE') {
      $('state').textContent = 'The sale opens at ' + new Date(place.opensAt).toLocaleString() + '.';
      $('rank').textContent = '…';
      return;
    }
    $('state').textContent = 'You are in line.';
    $('rank').textContent = String(place.rank);
    $('eta').textContent = place.estimatedWaitSeconds == null ? ''
      : 'About ' + Math.max(1, Math.round(place.estimatedWaitSeconds / 60)) + ' min to go.';
    // What the shop told the gateway is left (Queue-Stock), once known.
    $('left').textContent = place.stock == null ? ''
      : place.stock + ' left' + (place.withinStock === false ? ': maybe not enough for everyone ahead of you.' : '.');
  },
  onChallenge() {
    $('state').textContent = 'Checking your browser…';
  },
  onSolved(solved) {
    $('solved').textContent = solved.solvedIn === 'worker' ? 'in a worker' : 'on the page';
  },
  onAdmitted() {
    $('line').hidden = true;
    $('state').textContent = 'It is your turn.';
  },
});

function show(error) {
  const box = $('error');
  box.hidden = false;
  box.dataset.code = error instanceof QueueError ? error.code : 'error';
  box.textContent = error instanceof QueueError ? error.code + ': ' + error.message : String(error);
}

async function open() {
  waiting = new AbortController();
  try {
    let answer = await queue.fetch(productUrl, { headers: json, signal: waiting.signal });
    // null: the shopper waited and is admitted now; the request was held back, so ask again.
    while (answer === null) {
      answer = await queue.fetch(productUrl, { headers: json, signal: waiting.signal });
    }
    if (!answer.ok) {
      throw new Error('the shop answered ' + answer.status);
    }
    const product = await answer.json();
    $('name').textContent = product.name;
    $('price').textContent = (product.price / 100).toFixed(2);
    $('stock').textContent = String(product.stock);
    $('product').hidden = false;
    $('state').textContent = 'You are in.';
  }
  catch (error) {
    if (error.name === 'AbortError') {
      return;
    }
    if (error instanceof QueueError && error.code === 'sold_out') {
      // Not an error: the stock ran out while the shopper waited. The client asks no more.
      $('line').hidden = true;
      $('state').textContent = 'Sold out.';
      return;
    }
    show(error);
  }
}

async function buy() {
  $('buy').disabled = true;
  try {
    const answer = await queue.fetch(productUrl + '/orders', {
      method: 'POST', headers: { ...json, 'Content-Type': 'application/json' }, body: JSON.stringify({ quantity: 1 }),
    });
    if (answer === null) {
      $('state').textContent = 'It is your turn again: buy now.';
      return;
    }
    const body = await answer.json();
    if (!answer.ok) {
      throw new Error(body.message || 'the shop answered ' + answer.status);
    }
    $('order').hidden = false;
    $('order').textContent = 'Order ' + body.orderId + ' placed.';
    $('state').textContent = 'Thank you.';
  }
  catch (error) {
    show(error);
  }
  finally {
    $('buy').disabled = false;
  }
}

async function leave() {
  waiting.abort();
  try {
    const left = await queue.leave(productId);
    $('line').hidden = true;
    $('state').textContent = left === 'LEFT' ? 'You left the line.' : 'You held no place.';
  }
  catch (error) {
    show(error);
  }
}

$('buy').addEventListener('click', buy);
$('leave').addEventListener('click', leave);
open();
