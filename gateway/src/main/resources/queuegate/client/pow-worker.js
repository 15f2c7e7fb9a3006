// The Web Worker that runs QueueGate's proof-of-work search off the page's thread (a module
// worker, so the search is the one in pow.js). It answers the number, or null when none solves it.
import { searchRange } from './pow.js';

onmessage = (event) => {
  const challenge = event.data;
  const n = searchRange(challenge, 0, challenge.maxnumber);
  postMessage(n >= 0 ? n : null);
};
