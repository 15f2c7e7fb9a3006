// QueueGate's client for single-page apps: fetch through the waiting room. No dependencies and no
// build step; served by the gateway at /queue/client.js and packaged as @queuegate/client.
//
//   import { QueueClient, QueueError } from '/queue/client.js';
//   const queue = new QueueClient({ onStatus: (s) => showRank(s.rank, s.estimatedWaitSeconds) });
//   let answer = await queue.fetch('/api/products/42');
//   if (answer === null) answer = await queue.fetch('/api/products/42');   // waited, now admitted
//
// docs/client.md in the QueueGate repository describes every option and answer.

import { solve as solveOnThisThread } from './pow.js';

/**
 * The gateway's own error codes, each with the status it comes with: only an answer with both is
 * the gateway's, so a shop's own {"error":"sold_out"} with another status reaches the app untouched.
 */
const GATEWAY_ERRORS = new Map([
  ['invalid_path', 400], ['ambiguous_authorization', 400], ['ambiguous_identity', 400], ['invalid_product', 400],
  ['invalid_token', 401],
  ['invite_required', 403], ['invite_invalid', 403], ['invite_used', 403], ['wrong_product', 403],
  ['wrong_user', 403], ['token_bound', 403], ['challenge_invalid', 403],
  ['unknown_product', 404],
  ['challenge_used', 409], ['completion_in_progress', 409], ['session_ended', 409],
  ['sale_ended', 410], ['sold_out', 410],
  ['content_too_large', 413],
  ['challenge_required', 428],
  ['too_many_joins', 429], ['too_many_streams', 429],
  ['queue_closed', 503], ['room_closed', 503], ['queue_misconfigured', 503], ['queue_unavailable', 503],
]);

/** How many fresh challenges one call solves before it gives up (one expired, one used meanwhile...). */
const MAX_CHALLENGES = 3;

/** A worker could not be made or could not load its script: the search runs on the page's thread. */
const NO_WORKER = Symbol('no worker');

/**
 * The gateway refused the call, or the shopper lost the place: `code` is the contract's error code
 * (`session_ended`, `sale_ended`, `unknown_product`...), or `not_found` when the gateway no longer
 * holds the shopper's place, or `challenge_unsolved` when no number solves a challenge.
 *
 * `sold_out`: the product's stock is gone, whether the join or a request said so (410) or the
 * line did while the shopper waited (the status answer or the live stream; `status` 0 then). The
 * client has stopped asking and asks no more; the place is kept, so a later fetch after a restock
 * finds it. Show "Sold out", not an error.
 */
export class QueueError extends Error {
  constructor(code, message, status, retryAfterSeconds) {
    super(message || code);
    this.name = 'QueueError';
    this.code = code;
    /** The HTTP status of the answer that said so (0 when no answer did). */
    this.status = status || 0;
    /** When asking again may help, as the answer's Retry-After said; null when it did not say. */
    this.retryAfterSeconds = retryAfterSeconds == null ? null : retryAfterSeconds;
  }
}

export class QueueClient {
  /**
   * @param {object} [options]
   * @param {(status: object) => void} [options.onStatus] the shopper's place whenever it is known
   *        anew: {status: 'WAITING'|'PRE_QUEUE', productId, rank, estimatedWaitSeconds, retryAfterSeconds,
   *        opensAt, comeBackBy, preQueued, stock, withinStock}; stock is the units the product has
   *        left (null while unknown), withinStock whether they can serve this place once everyone
   *        ahead has bought (null while the stock is unknown, and in a pre-queue)
   * @param {(event: {productId: string}) => void} [options.onAdmitted] the shopper's turn came
   * @param {() => void} [options.onChallenge] a proof of work is being solved (show "checking your browser")
   * @param {(event: {solvedIn: 'worker'|'page', milliseconds: number}) => void} [options.onSolved]
   * @param {boolean} [options.worker] false to solve on the page's thread without trying a Worker
   * @param {(url: string) => string|null} [options.productOf] the product a request is for, so it
   *        carries that product's Queue-Token header (needed only where the token cookie does not
   *        travel: another site's app)
   * @param {{get(id: string): string|undefined, set(id: string, token: string): void}} [options.tokens]
   *        where tokens are kept by product id (a Map by default; a sessionStorage wrapper keeps
   *        them across reloads)
   * @param {RequestCredentials} [options.credentials] for the requests the client makes itself
   *        (status and events); 'include' for an app on another origin whose gateway allows it
   * @param {typeof fetch} [options.fetch]
   */
  constructor(options = {}) {
    this.onStatus = options.onStatus || (() => {});
    this.onAdmitted = options.onAdmitted || (() => {});
    this.onChallenge = options.onChallenge || (() => {});
    this.onSolved = options.onSolved || (() => {});
    this.useWorker = options.worker !== false;
    this.productOf = options.productOf || (() => null);
    this.tokens = options.tokens || new Map();
    this.credentials = options.credentials;
    this.send = options.fetch || ((request) => fetch(request));
    // The product each address was last answered for, so repeating a call carries its token.
    this.products = new Map();
  }

  /**
   * Sends a request through the waiting room.
   *
   * @returns {Promise<Response|null>} the shop's answer when the gateway let the request through;
   *          null when the shopper had to wait and is now admitted: the request was held back,
   *          never forwarded, and the app sends it again (the client never replays a request the
   *          shop may have acted on)
   * @throws {QueueError} the gateway refused it (its code says why), the place was lost
   *         (`not_found`), or the product sold out while the shopper waited (`sold_out`)
   */
  async fetch(input, init = {}) {
    const template = new Request(input, init);
    const signal = init.signal || null;
    let solution = null;
    let challenges = 0;
    for (;;) {
      const request = template.clone();
      const productId = this.productOf(request.url) || this.products.get(request.url);
      const token = productId ? this.tokens.get(productId) : null;
      if (token) {
        request.headers.set('Queue-Token', token);
      }
      if (solution) {
        request.headers.set('Queue-Challenge', solution);
      }
      const response = await this.send(request);
      this.#keep(response.headers.get('Queue-Token'), request.url);
      const body = await gatewayBody(response);
      if (body === null) {
        return response;
      }
      if (body.challenge && /^challenge_/.test(body.error) && challenges < MAX_CHALLENGES) {
        // Refused before the shop saw it: the contract asks for the same request with a solution.
        challenges++;
        solution = await this.#solve(body.challenge, signal);
        continue;
      }
      if (body.error) {
        throw refusal(response, body);
      }
      this.#keep(body.token, request.url);
      await this.#waitForTurn(body, new URL(request.url), signal);
      this.onAdmitted({ productId: body.productId });
      return null;
    }
  }

  /** Gives the place up (DELETE /queue/{productId}); the answer's status: LEFT or NOT_FOUND. */
  async leave(productId, base = location.href) {
    const response = await this.#queueCall('DELETE', productId, '', new URL(base), null);
    const body = await response.json();
    if (!response.ok) {
      throw refusal(response, body);
    }
    return body.status;
  }

  #keep(token, url) {
    const productId = token && productOfToken(token);
    if (productId) {
      this.tokens.set(productId, token);
      this.products.set(url, productId);
    }
  }

  async #waitForTurn(first, origin, signal) {
    const productId = first.productId;
    let answer = first;
    for (;;) {
      this.onStatus(statusOf(answer));
      let delay = (answer.retryAfterSeconds || 1) * 1000;
      if (answer.status === 'WAITING') {
        const ended = await this.#follow(productId, origin, signal);
        if (ended === 'active') {
          return;
        }
        if (ended === 'not_found') {
          throw lost(productId);
        }
        if (ended === 'sold_out') {
          throw soldOut(productId);
        }
        if (ended === 'renew') {
          delay = 0;
        }
      }
      // In a pre-queue there is no place to follow until the draw; after a stream that broke, or
      // one that asks for a renewed token, the status answer brings the place and the token.
      await sleep(delay, signal);
      answer = await this.#status(productId, origin, signal);
      if (answer.status === 'ACTIVE') {
        return;
      }
      if (answer.status === 'NOT_FOUND') {
        throw lost(productId);
      }
      if (answer.status === 'SOLD_OUT') {
        throw soldOut(productId);
      }
    }
  }

  /** The status endpoint, asked until it answers; a passing outage waits as its Retry-After says. */
  async #status(productId, origin, signal) {
    for (;;) {
      let response;
      try {
        response = await this.#queueCall('GET', productId, '/status', origin, signal);
      }
      catch (failure) {
        signal?.throwIfAborted();
        await sleep(2000, signal);
        continue;
      }
      this.#keepFor(productId, response);
      const body = await response.json().catch(() => ({}));
      if (response.ok) {
        return body;
      }
      if (response.status === 503 || response.status === 429 && body.error === 'too_many_streams') {
        await sleep(retryAfter(response, 5) * 1000, signal);
        continue;
      }
      throw refusal(response, body);
    }
  }

  /**
   * Follows the place on the event stream until it says the shopper is admitted ("active"), has
   * no place ("not_found"), needs a renewed token ("renew"), the product sold out ("sold_out", the
   * stream's last event), or the stream ends ("ended").
   */
  async #follow(productId, origin, signal) {
    const stop = new AbortController();
    const abort = () => stop.abort(signal.reason);
    signal?.addEventListener('abort', abort, { once: true });
    try {
      const response = await this.#queueCall('GET', productId, '/events', origin, stop.signal);
      if (!response.ok || !response.body) {
        await response.body?.cancel();
        return 'ended';
      }
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) {
          return 'ended';
        }
        buffer += value.replace(/\r\n?/g, '\n');
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const event = parseEvent(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
          if (event.name === 'status' && event.data) {
            this.onStatus(statusOf({ productId, ...event.data }));
          }
          else if (event.name === 'active' || event.name === 'not_found' || event.name === 'renew'
              || event.name === 'sold_out') {
            return event.name;
          }
        }
      }
    }
    catch (failure) {
      signal?.throwIfAborted();
      return 'ended';
    }
    finally {
      signal?.removeEventListener('abort', abort);
      stop.abort();
    }
  }

  #queueCall(method, productId, suffix, origin, signal) {
    const headers = { Accept: suffix === '/events' ? 'text/event-stream' : 'application/json' };
    const token = this.tokens.get(productId);
    if (token) {
      headers['Queue-Token'] = token;
    }
    const url = new URL('/queue/' + encodeURIComponent(productId) + suffix, origin);
    const init = { method, headers, cache: 'no-store', signal };
    if (this.credentials) {
      init.credentials = this.credentials;
    }
    return this.send(new Request(url, init));
  }

  #keepFor(productId, response) {
    const token = response.headers.get('Queue-Token');
    if (token && productOfToken(token) === productId) {
      this.tokens.set(productId, token);
    }
  }

  async #solve(challenge, signal) {
    this.onChallenge();
    const started = Date.now();
    let number;
    let solvedIn = 'worker';
    try {
      if (!this.useWorker) {
        throw NO_WORKER;
      }
      number = await inWorker(challenge, signal);
    }
    catch (failure) {
      if (failure !== NO_WORKER) {
        throw failure;
      }
      // A worker from another origin (a client loaded from the gateway into another site's page),
      // or one a Content-Security-Policy forbids: the page's own thread searches, in slices.
      solvedIn = 'page';
      number = await solveOnThisThread(challenge, signal);
    }
    if (number === null) {
      throw new QueueError('challenge_unsolved', 'no number solves the proof-of-work challenge', 0, null);
    }
    this.onSolved({ solvedIn, milliseconds: Date.now() - started });
    return btoa(JSON.stringify({ algorithm: challenge.algorithm, challenge: challenge.challenge, number,
      salt: challenge.salt, signature: challenge.signature }));
  }
}

function inWorker(challenge, signal) {
  return new Promise((resolve, reject) => {
    let worker;
    try {
      worker = new Worker(new URL('./pow-worker.js', import.meta.url), { type: 'module' });
    }
    catch (unavailable) {
      reject(NO_WORKER);
      return;
    }
    const done = () => {
      worker.terminate();
      signal?.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      done();
      reject(signal.reason);
    };
    signal?.addEventListener('abort', aborted, { once: true });
    worker.onmessage = (event) => {
      done();
      resolve(event.data);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      done();
      reject(NO_WORKER);
    };
    worker.postMessage(challenge);
  });
}

/** The JSON body of an answer the gateway wrote itself, or null for the shop's own answer. */
async function gatewayBody(response) {
  const status = response.status;
  if (status !== 429 && status !== 428 && !(status >= 400 && [...GATEWAY_ERRORS.values()].includes(status))) {
    return null;
  }
  if (!/json/i.test(response.headers.get('Content-Type') || '')) {
    return null;
  }
  let body;
  try {
    body = await response.clone().json();
  }
  catch (unreadable) {
    return null;
  }
  if (!body || typeof body !== 'object') {
    return null;
  }
  if (status === 429 && (body.status === 'WAITING' || body.status === 'PRE_QUEUE') && body.productId) {
    return body;
  }
  return GATEWAY_ERRORS.get(body.error) === status ? body : null;
}

function refusal(response, body) {
  return new QueueError(body.error || 'http_' + response.status, body.message, response.status,
    response.headers.has('Retry-After') ? retryAfter(response, 0) : null);
}

function lost(productId) {
  return new QueueError('not_found', 'the waiting room no longer holds a place in line for ' + productId
    + '; sending the request again joins at the back', 0, null);
}

function soldOut(productId) {
  return new QueueError('sold_out', productId + ' is sold out: the client stopped asking; the place is kept '
    + 'should it be restocked', 0, null);
}

function statusOf(answer) {
  return {
    status: answer.status,
    productId: answer.productId,
    rank: answer.rank == null ? null : answer.rank,
    estimatedWaitSeconds: answer.estimatedWaitSeconds == null ? null : answer.estimatedWaitSeconds,
    retryAfterSeconds: answer.retryAfterSeconds == null ? null : answer.retryAfterSeconds,
    opensAt: answer.opensAt || null,
    comeBackBy: answer.comeBackBy || null,
    preQueued: answer.preQueued == null ? null : answer.preQueued,
    stock: answer.stock == null ? null : answer.stock,
    withinStock: answer.withinStock == null ? null : answer.withinStock,
  };
}

function parseEvent(text) {
  let name = 'message';
  let data = '';
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') {
      name = value;
    }
    else if (field === 'data') {
      data += (data ? '\n' : '') + value;
    }
  }
  let parsed = null;
  try {
    parsed = data ? JSON.parse(data) : null;
  }
  catch (notJson) {
    parsed = null;
  }
  return { name, data: parsed };
}

/** The product a wait token is for: its pid claim (the token is a JWT; its signature is the gateway's to check). */
function productOfToken(token) {
  try {
    const payload = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(payload + '==='.slice((payload.length + 3) % 4))).pid || null;
  }
  catch (malformed) {
    return null;
  }
}

function retryAfter(response, otherwise) {
  const seconds = Number.parseInt(response.headers.get('Retry-After'), 10);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : otherwise;
}

function sleep(milliseconds, signal) {
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve();
    }, milliseconds);
    const aborted = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}
