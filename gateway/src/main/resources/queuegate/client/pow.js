// QueueGate's proof-of-work search (the ALTCHA protocol, as the gateway's challenge page solves
// it): the number n, 0 <= n <= maxnumber, whose SHA-256(salt + n) is the challenge. Plain SHA-256
// over 32-bit integers, so it runs where crypto.subtle does not (a page served over plain HTTP)
// and costs no promise per hash. The challenge page's worker runs this very file (its exports
// dropped, as a classic script inside the page), so it imports nothing and holds no text that
// would end an HTML script element.

const K = new Int32Array([0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
  0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
  0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138,
  0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70,
  0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5,
  0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa,
  0xa4506ceb, 0xbef9a3f7, 0xc67178f2]);
const IV = new Int32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
  0x5be0cd19]);
const W = new Int32Array(64);
const H = new Int32Array(8);

function put(m, at, text) {
  for (let i = 0; i < text.length; i++) {
    m[(at + i) >> 2] |= text.charCodeAt(i) << (24 - ((at + i) & 3) * 8);
  }
}

function compress(m, words) {
  H.set(IV);
  for (let j = 0; j < words; j += 16) {
    let i = 0;
    for (; i < 16; i++) { W[i] = m[j + i]; }
    for (; i < 64; i++) {
      const x = W[i - 15], y = W[i - 2];
      W[i] = (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3))
          + (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10)) + W[i - 7] + W[i - 16];
    }
    let a = H[0], b = H[1], c = H[2], d = H[3], e = H[4], f = H[5], g = H[6], h = H[7];
    for (i = 0; i < 64; i++) {
      const t1 = h + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7)))
          + ((e & f) ^ (~e & g)) + K[i] + W[i] | 0;
      const t2 = (((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10)))
          + ((a & b) ^ (a & c) ^ (b & c)) | 0;
      h = g; g = f; f = e; e = d + t1 | 0; d = c; c = b; b = a; a = t1 + t2 | 0;
    }
    H[0] += a; H[1] += b; H[2] += c; H[3] += d; H[4] += e; H[5] += f; H[6] += g; H[7] += h;
  }
}

/**
 * Searches the numbers from..to (both included) of a challenge
 * ({algorithm, challenge, maxnumber, salt, signature}).
 *
 * @returns {number} the number, or -1 when none of these solves it
 */
export function searchRange(challenge, from, to) {
  const salt = challenge.salt;
  const want = new Int32Array(8);
  let i;
  for (i = 0; i < 8; i++) { want[i] = parseInt(challenge.challenge.substr(8 * i, 8), 16); }
  const size = ((salt.length + 20 + 8 >> 6) + 1) << 4;
  const base = new Int32Array(size);
  const m = new Int32Array(size);
  put(base, 0, salt);
  for (let n = from; n <= to; n++) {
    const digits = String(n), length = salt.length + digits.length, words = ((length + 8 >> 6) + 1) << 4;
    m.set(base);
    put(m, salt.length, digits);
    m[length >> 2] |= 0x80 << (24 - (length & 3) * 8);
    m[words - 1] = length * 8;
    compress(m, words);
    for (i = 0; i < 8 && H[i] === want[i]; i++) { }
    if (i === 8) { return n; }
  }
  return -1;
}

/**
 * The search on the calling thread, in slices, so a page without a Web Worker stays responsive
 * and the search stops when the signal aborts.
 *
 * @returns {Promise<number|null>} the number, or null when no number up to maxnumber solves it
 */
export async function solve(challenge, signal, slice = 10000) {
  for (let from = 0; from <= challenge.maxnumber; from += slice) {
    if (signal) { signal.throwIfAborted(); }
    const n = searchRange(challenge, from, Math.min(from + slice - 1, challenge.maxnumber));
    if (n >= 0) { return n; }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return null;
}
