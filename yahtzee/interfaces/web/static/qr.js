// A QR code of a seat link, drawn as SVG: byte mode, error correction level M, versions 1 to 10
// (up to 213 bytes, enough for any link the table gives). It follows ISO/IEC 18004 as Project
// Nayuki's reference encoder does; window.QR.matrix(text) gives the modules (true: dark) and the
// mask chosen, window.QR.svg(text, label) an <svg> element, or null for a text too long.
"use strict";

(() => {
  const ECC_PER_BLOCK = [-1, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26];   // level M, by version
  const BLOCKS = [-1, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5];
  const FORMAT_M = 0;                                                   // level M's format bits

  const bit = (x, i) => ((x >>> i) & 1) !== 0;

  function rawModules(version) {
    let result = (16 * version + 128) * version + 64;
    if (version >= 2) {
      const align = Math.floor(version / 7) + 2;
      result -= (25 * align - 10) * align - 55;
      if (version >= 7) result -= 36;
    }
    return result;
  }

  const dataCodewords = (version) => Math.floor(rawModules(version) / 8) - ECC_PER_BLOCK[version] * BLOCKS[version];

  // -- Reed-Solomon over GF(2^8) modulo x^8 + x^4 + x^3 + x^2 + 1 ---------------------------
  function multiply(x, y) {
    let z = 0;
    for (let i = 7; i >= 0; i--) {
      z = (z << 1) ^ ((z >>> 7) * 0x11d);
      z ^= ((y >>> i) & 1) * x;
    }
    return z;
  }

  function divisor(degree) {
    const result = new Array(degree).fill(0);
    result[degree - 1] = 1;
    let root = 1;
    for (let i = 0; i < degree; i++) {
      for (let j = 0; j < result.length; j++) {
        result[j] = multiply(result[j], root);
        if (j + 1 < result.length) result[j] ^= result[j + 1];
      }
      root = multiply(root, 0x02);
    }
    return result;
  }

  function remainder(data, by) {
    const result = by.map(() => 0);
    for (const b of data) {
      const factor = b ^ result.shift();
      result.push(0);
      by.forEach((coef, i) => { result[i] ^= multiply(coef, factor); });
    }
    return result;
  }

  // -- the codewords: mode, count, bytes, padding; then the blocks with their correction, interleaved
  function codewords(bytes, version) {
    const bits = [];
    const put = (value, length) => { for (let i = length - 1; i >= 0; i--) bits.push((value >>> i) & 1); };
    put(4, 4);
    put(bytes.length, version < 10 ? 8 : 16);
    bytes.forEach((b) => put(b, 8));
    const capacity = dataCodewords(version) * 8;
    put(0, Math.min(4, capacity - bits.length));
    put(0, (8 - bits.length % 8) % 8);
    for (let pad = 0xec; bits.length < capacity; pad ^= 0xec ^ 0x11) put(pad, 8);
    const data = [];
    for (let i = 0; i < bits.length; i += 8) data.push(bits.slice(i, i + 8).reduce((a, b) => (a << 1) | b, 0));
    const blocks = BLOCKS[version];
    const eccLength = ECC_PER_BLOCK[version];
    const raw = Math.floor(rawModules(version) / 8);
    const short = blocks - raw % blocks;
    const shortLength = Math.floor(raw / blocks);
    const by = divisor(eccLength);
    const made = [];
    for (let i = 0, k = 0; i < blocks; i++) {
      const block = data.slice(k, k + shortLength - eccLength + (i < short ? 0 : 1));
      k += block.length;
      const ecc = remainder(block, by);
      if (i < short) block.push(0);
      made.push(block.concat(ecc));
    }
    const result = [];
    for (let i = 0; i < made[0].length; i++) {
      made.forEach((block, j) => { if (i !== shortLength - eccLength || j >= short) result.push(block[i]); });
    }
    return result;
  }

  // -- the symbol ---------------------------------------------------------------------------
  function alignmentPositions(version, size) {
    if (version === 1) return [];
    const count = Math.floor(version / 7) + 2;
    const step = Math.ceil((version * 4 + 4) / (count * 2 - 2)) * 2;
    const result = [6];
    for (let pos = size - 7; result.length < count; pos -= step) result.splice(1, 0, pos);
    return result;
  }

  function symbol(version) {
    const size = version * 4 + 17;
    const modules = Array.from({length: size}, () => new Array(size).fill(false));
    const fixed = Array.from({length: size}, () => new Array(size).fill(false));
    const set = (x, y, dark) => { modules[y][x] = dark; fixed[y][x] = true; };
    for (let i = 0; i < size; i++) { set(6, i, i % 2 === 0); set(i, 6, i % 2 === 0); }
    for (const [cx, cy] of [[3, 3], [size - 4, 3], [3, size - 4]]) {
      for (let dy = -4; dy <= 4; dy++) {
        for (let dx = -4; dx <= 4; dx++) {
          const distance = Math.max(Math.abs(dx), Math.abs(dy));
          const x = cx + dx;
          const y = cy + dy;
          if (x >= 0 && x < size && y >= 0 && y < size) set(x, y, distance !== 2 && distance !== 4);
        }
      }
    }
    const positions = alignmentPositions(version, size);
    const last = positions.length - 1;
    positions.forEach((cx, i) => positions.forEach((cy, j) => {
      if ((i === 0 && j === 0) || (i === 0 && j === last) || (i === last && j === 0)) return;
      for (let dy = -2; dy <= 2; dy++) {
        for (let dx = -2; dx <= 2; dx++) set(cx + dx, cy + dy, Math.max(Math.abs(dx), Math.abs(dy)) !== 1);
      }
    }));
    if (version >= 7) {
      let rem = version;
      for (let i = 0; i < 12; i++) rem = (rem << 1) ^ ((rem >>> 11) * 0x1f25);
      const bits = (version << 12) | rem;
      for (let i = 0; i < 18; i++) {
        const a = size - 11 + i % 3;
        const b = Math.floor(i / 3);
        set(a, b, bit(bits, i));
        set(b, a, bit(bits, i));
      }
    }
    return {size, modules, fixed, set};
  }

  function drawFormat(qr, mask) {
    const {size, set} = qr;
    const data = (FORMAT_M << 3) | mask;
    let rem = data;
    for (let i = 0; i < 10; i++) rem = (rem << 1) ^ ((rem >>> 9) * 0x537);
    const bits = ((data << 10) | rem) ^ 0x5412;
    for (let i = 0; i <= 5; i++) set(8, i, bit(bits, i));
    set(8, 7, bit(bits, 6));
    set(8, 8, bit(bits, 7));
    set(7, 8, bit(bits, 8));
    for (let i = 9; i < 15; i++) set(14 - i, 8, bit(bits, i));
    for (let i = 0; i < 8; i++) set(size - 1 - i, 8, bit(bits, i));
    for (let i = 8; i < 15; i++) set(8, size - 15 + i, bit(bits, i));
    set(8, size - 8, true);
  }

  function drawData(qr, data) {
    const {size, modules, fixed} = qr;
    let i = 0;
    for (let right = size - 1; right >= 1; right -= 2) {
      if (right === 6) right = 5;
      for (let vert = 0; vert < size; vert++) {
        for (let j = 0; j < 2; j++) {
          const x = right - j;
          const y = ((right + 1) & 2) === 0 ? size - 1 - vert : vert;
          if (!fixed[y][x] && i < data.length * 8) {
            modules[y][x] = bit(data[i >>> 3], 7 - (i & 7));
            i++;
          }
        }
      }
    }
  }

  const MASKS = [
    (x, y) => (x + y) % 2 === 0, (x, y) => y % 2 === 0, (x) => x % 3 === 0,
    (x, y) => (x + y) % 3 === 0, (x, y) => (Math.floor(x / 3) + Math.floor(y / 2)) % 2 === 0,
    (x, y) => x * y % 2 + x * y % 3 === 0, (x, y) => (x * y % 2 + x * y % 3) % 2 === 0,
    (x, y) => ((x + y) % 2 + x * y % 3) % 2 === 0];

  function masked(qr, mask) {
    const {size, modules, fixed} = qr;
    return modules.map((row, y) => row.map((dark, x) => (fixed[y][x] || !MASKS[mask](x, y) ? dark : !dark)));
  }

  // The standard's penalty: runs of five or more, 2x2 blocks, finder-like patterns, imbalance.
  function penalty(grid) {
    const size = grid.length;
    let score = 0;
    const finder = (line) => {
      let found = 0;
      const text = line.map((d) => (d ? "1" : "0")).join("");
      for (const pattern of ["00001011101", "10111010000"]) {
        for (let at = text.indexOf(pattern); at >= 0; at = text.indexOf(pattern, at + 1)) found++;
      }
      return found;
    };
    const lines = [...grid, ...grid.map((_, x) => grid.map((row) => row[x]))];
    for (const line of lines) {
      let run = 1;
      for (let i = 1; i <= size; i++) {
        if (i < size && line[i] === line[i - 1]) { run++; continue; }
        if (run >= 5) score += run - 2;
        run = 1;
      }
      const padded = [...new Array(4).fill(false), ...line, ...new Array(4).fill(false)];
      score += 40 * finder(padded);
    }
    let dark = 0;
    for (let y = 0; y < size; y++) {
      for (let x = 0; x < size; x++) {
        if (grid[y][x]) dark++;
        if (x + 1 < size && y + 1 < size && grid[y][x] === grid[y][x + 1] && grid[y][x] === grid[y + 1][x]
            && grid[y][x] === grid[y + 1][x + 1]) score += 3;
      }
    }
    const total = size * size;
    score += (Math.ceil(Math.abs(dark * 20 - total * 10) / total) - 1) * 10;
    return score;
  }

  function matrix(text) {
    const bytes = [...new TextEncoder().encode(text)];
    let version = 1;
    while (version < BLOCKS.length && 4 + (version < 10 ? 8 : 16) + bytes.length * 8 > dataCodewords(version) * 8) version++;
    if (version >= BLOCKS.length) return null;
    const data = codewords(bytes, version);
    let best = null;
    for (let mask = 0; mask < 8; mask++) {
      const qr = symbol(version);
      drawFormat(qr, mask);
      drawData(qr, data);
      const grid = masked(qr, mask);
      const score = penalty(grid);
      if (best === null || score < best.score) best = {grid, mask, version, score};
    }
    return best;
  }

  function svg(text, label) {
    const made = matrix(text);
    if (made === null) return null;
    const NS = "http://www.w3.org/2000/svg";
    const size = made.grid.length + 8;
    const node = document.createElementNS(NS, "svg");
    node.setAttribute("viewBox", `0 0 ${size} ${size}`);
    node.setAttribute("role", "img");
    node.setAttribute("aria-label", label);
    node.setAttribute("class", "qr");
    const back = document.createElementNS(NS, "rect");
    back.setAttribute("width", size);
    back.setAttribute("height", size);
    back.setAttribute("fill", "#fff");
    const path = document.createElementNS(NS, "path");
    const steps = [];
    made.grid.forEach((row, y) => row.forEach((dark, x) => { if (dark) steps.push(`M${x + 4} ${y + 4}h1v1h-1z`); }));
    path.setAttribute("d", steps.join(""));
    path.setAttribute("fill", "#000");
    node.append(back, path);
    return node;
  }

  window.QR = {matrix, svg};
})();
