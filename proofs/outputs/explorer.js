/* The basin explorer's runtime (hand-written): control flow, the integrator, the Airy functions of a real
   argument, drawing. Every expression of the paper comes from the generated block (GEN, printed from the
   derived SymPy expressions); the sets are data (DATA). This file computes no formula of the paper:
   tests/test_explorer.py scans it (no exp/log/pow, no arithmetic on the model's variables). */
"use strict";

const DATA = JSON.parse(document.getElementById("xp-data").textContent);

function fraction(text) {
  /* "0.9", "9/10" or "-1/2" as a float (NaN for anything else) */
  const parts = String(text).split("/").map(Number);
  return parts.length <= 2 ? parts.reduce(function (num, den) { return num / den; }) : NaN;
}

/* ---- special functions: Ai, Ai', Bi, Bi' of a real argument ---------------------------------------
   Values at the nodes z_k = lo + k h come from the build (arb, rounded to float64); between nodes the
   solution of phi'' = z phi through the nearest node is summed as its Taylor series in t = z - z_k,
   (n + 1)(n + 2) c[n + 2] = z_k c[n] + c[n - 1], |t| <= h/2 = 1/8 (30 terms: below 1e-20 relative). */
const AIRY = (function () {
  const T = DATA.airy;
  const lo = fraction(T.z0), h = fraction(T.h), n = T.n, hi = lo + n * h;
  const cols = [T.ai, T.aip, T.bi, T.bip].map(function (pc) { return pc.map(Number); });
  let lastZ = NaN, lastV = null;
  function taylor(zk, v0, d0, t) {
    let cPrev = 0, c0 = v0, c1 = d0, val = v0, der = d0, tn = 1;   // tn = t^k for the k of c1
    for (let k = 0; k < 30; k++) {
      const c2 = (zk * c0 + cPrev) / ((k + 1) * (k + 2));
      val += c1 * tn * t;
      der += (k + 2) * c2 * tn * t;
      tn *= t;
      cPrev = c0; c0 = c1; c1 = c2;
    }
    return [val, der];
  }
  function at(z) {
    if (z === lastZ) return lastV;
    let out;
    if (!(z >= lo && z <= hi)) out = [NaN, NaN, NaN, NaN];
    else {
      const k = Math.round((z - lo) / h), zk = lo + k * h, t = z - zk;
      const ra = taylor(zk, cols[0][k], cols[1][k], t), rb = taylor(zk, cols[2][k], cols[3][k], t);
      out = [ra[0], ra[1], rb[0], rb[1]];
    }
    lastZ = z; lastV = out;
    return out;
  }
  return { at: at, lo: lo, hi: hi, a1: Number(T.a1) };
})();
const SPECIAL = {
  ai: function (z) { return AIRY.at(z)[0]; }, aip: function (z) { return AIRY.at(z)[1]; },
  bi: function (z) { return AIRY.at(z)[2]; }, bip: function (z) { return AIRY.at(z)[3]; },
};

(function () {
  const COL = {
    local_min: "#c6dbef", global_min: "#fdd0a2", local_max: "#9ecae1", saddle: "#000000", station: "#bcbddc",
    unbounded: "#f4a6c9", none: "#ffffff",
  };
  const INK = {
    local_min: "#2171b5", global_min: "#d94801", local_max: "#08519c", saddle: "#000000", station: "#54278f",
    unbounded: "#c51b7d", null: "#555555",
  };
  const LINE = { min: "#d62728", max: "#1f77b4", star: "#2ca02c", g: "#e6b800", contour: "#6a51a3", S: "#222222",
                 C: "#7a0177", N: "#41ab5d", wc: "#8c2d04" };
  const VIEW = { hlo: -2.5, hhi: 2.5, vlo: -2.5, vhi: 2.5 };          // w horizontal, e vertical (as Fig. 1)
  const AE = { hlo: -3, hhi: 1.5, vlo: -3, vhi: 3 };                  // the (a, e) panel
  const TOL = { rtol: 1e-9, atol: 1e-12, grad: 1e-13, dist: 1e-9, star: 1e-6, eline: 1e-6, sad: 1e-4,
                maxSteps: 20000, maxNorm: 1e3 };

  const state = { pv: 0.9, qv: 0.9, view: "r2", a0: 0, paths: [], cloud: null, last: null };
  const byId = function (id) { return document.getElementById(id); };

  function sgn(x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }
  function norm(v) { return Math.hypot.apply(null, v); }                      // Euclidean length (geometry)
  function decimal(x) {
    /* the shortest decimal of a float (what was typed: "0.3") as {digits, scale = 10^k}, exactly; null if it has
       none short enough for exact integers */
    const m = /^(\d+)(?:\.(\d+))?/.exec(String(x));
    if (!m || m[0] !== String(x) || (m[2] || "").length > 15) return null;
    let scale = 1;
    for (let i = 0; i < (m[2] || "").length; i++) scale *= 10;
    return { digits: Number(m[1] + (m[2] || "")), scale: scale };
  }
  function regime() {
    /* sign(p + q - 1) on the decimals typed (0.3 + 0.7 = 1 exactly, unlike its float sum) */
    const dp = decimal(state.pv), dq = decimal(state.qv);
    if (!dp || !dq) return GEN.regime(state.pv, state.qv);
    const scale = Math.max(dp.scale, dq.scale);                        // powers of ten: the products are exact
    return GEN.regime_decimal(dp.digits * (scale / dp.scale), dq.digits * (scale / dq.scale), scale);
  }
  function regimeKey() { return regime() > 0 ? "p+q>1" : "p+q<1"; }
  /* the operator table of the basin sets, x op 0 (symbolic.sets.RELATIONS; the test holds the keys to it) */
  const OPS = {
    "<": function (x) { return x < 0; }, ">": function (x) { return x > 0; }, "==": function (x) { return x === 0; },
    "!=": function (x) { return x !== 0; }, "<=": function (x) { return x <= 0; }, ">=": function (x) { return x >= 0; },
  };

  /* ---- the field, the critical sets, the limit's class ------------------------------------------ */
  function field(th) {
    return th.length === 2 ? GEN.gradL(state.pv, state.qv, th[0], th[1])
                           : GEN.gradL3(state.pv, state.qv, th[0], th[1], th[2]);
  }
  function slopeGrad(th) { return th.length === 2 ? GEN.gradA(th[0], th[1]) : GEN.gradA3(th[0], th[1], th[2]); }
  function energy(th) {
    if (th[1] === 0) return NaN;                                       // undefined on w = 0 (invariant)
    return th.length === 2 ? GEN.E(th[0], th[1]) : GEN.E3(th[0], th[1], th[2]);
  }
  function criticalSet(tag, name) {
    for (const cs of DATA[tag]) if (cs.name === name) return cs;
    throw new Error("no critical set " + name);
  }
  function critArgs(th) {
    return th.length === 2 ? [state.pv, state.qv, th[0], th[1]] : [state.pv, state.qv, th[0], th[1], th[2]];
  }
  function residual(tag, name, k, th) { return GEN[criticalSet(tag, name).eqs[k]].apply(null, critArgs(th)); }
  function distances(th) {
    /* distance-like measures to the critical sets, from their own equations (as ReducedFlow.distances):
       |residual of Theta*| / |grad A|, |residual of the line (plane) e = 0|, and |e| |residuals of Theta_station| */
    const tag = th.length === 2 ? "critical2" : "critical3";
    const gA = norm(slopeGrad(th)), eline = Math.abs(residual(tag, "Theta_min", 0, th));
    const out = { star: gA > 0 ? Math.abs(residual(tag, "Theta_star", 0, th)) / gA : Infinity, eline: eline };
    if (th.length === 3) out.station = eline > 1e-3 ? GEN.station_distance.apply(null, critArgs(th)) : Infinity;
    return out;
  }
  function minDistance(th) { const d = distances(th); return Math.min.apply(null, Object.values(d)); }
  function limitClass(th) {
    /* the critical set the end point lies on (as numeric.dynamics.basins.critical_class), else null */
    const d = distances(th), tag = th.length === 2 ? "critical2" : "critical3";
    if (d.station !== undefined && d.station <= TOL.star) return "station";
    if (d.star <= TOL.star && d.eline > TOL.eline) return "global_min";
    if (d.eline <= TOL.eline) {
      if (regime() === 0) return "degenerate";             // p + q = 1: G'(0) = 0, every point of e = 0 alike
      const sad = GEN[criticalSet(tag, "Theta_sad").points]();
      if (Math.hypot(th[0] - sad[0], th[1] - sad[1]) <= TOL.sad) return "saddle";
      const mn = criticalSet(tag, "Theta_min");
      const v = GEN[mn.cond[0]].apply(null, critArgs(th));
      return OPS[mn.cond[1]](v) ? "local_min" : "local_max";
    }
    return null;
  }

  /* ---- Dormand-Prince 5(4) with error control; the tableau is data ------------------------------ */
  const TB = { c: DATA.tableau.c.map(Number), a: DATA.tableau.a.map(function (r) { return r.map(Number); }),
               b: DATA.tableau.b.map(Number), bhat: DATA.tableau.bhat.map(Number) };
  function integrate(th0) {
    const dim = th0.length;
    let y = th0.slice(), g = field(y), evals = 1, steps = 0, rejected = 0, streak = 0, t = 0;
    const path = [y.slice()];
    const E0 = energy(y);
    let drift = 0, dist = minDistance(y);
    function done(status) {
      return { status: status, end: y, t: t, steps: steps, rejected: rejected, evals: evals, path: path,
               drift: isNaN(E0) ? null : drift, gnorm: norm(g) };
    }
    if (norm(g) === 0) return done("stationary");
    const scale = Math.max.apply(null, y.map(Math.abs)) + TOL.atol;
    let H = Math.min(1, 0.1 * scale / norm(g));
    const k = new Array(7);
    while (true) {
      if (steps >= TOL.maxSteps) return done("max_steps");
      k[0] = g;
      for (let s = 1; s < 7; s++) {
        const ys = new Array(dim);
        for (let i = 0; i < dim; i++) {
          let acc = 0;
          for (let j = 0; j < s; j++) acc += TB.a[s][j] * k[j][i];
          ys[i] = y[i] - H * acc;                                   // the flow is -grad L
        }
        k[s] = field(ys);
      }
      evals += 6;
      const y5 = new Array(dim);
      let err = 0, finite = true;
      for (let i = 0; i < dim; i++) {
        let acc = 0, accErr = 0;
        for (let s = 0; s < 7; s++) { acc += TB.b[s] * k[s][i]; accErr += (TB.b[s] - TB.bhat[s]) * k[s][i]; }
        y5[i] = y[i] - H * acc;
        finite = finite && isFinite(y5[i]);
        err = Math.max(err, Math.abs(H * accErr) / (TOL.atol + TOL.rtol * Math.max(Math.abs(y[i]), Math.abs(y5[i]))));
      }
      if (!finite || !(err <= 1)) {
        rejected++; streak++;
        if (streak > 60) return done("stalled");
        H *= (finite && err > 0 && isFinite(err)) ? Math.max(0.2, GEN.step_factor(err)) : 0.2;
        continue;
      }
      streak = 0; t += H; steps++;
      y = y5;
      g = k[6];                                                     // first same as last: k7 = grad at y5
      path.push(y.slice());
      if (!isNaN(E0)) drift = Math.max(drift, Math.abs(energy(y) - E0));
      H *= err > 0 ? Math.min(5, Math.max(0.2, GEN.step_factor(err))) : 5;
      const gn = norm(g);
      if (gn === 0) return done("stationary");
      if (norm(y) > TOL.maxNorm) return done("unbounded");
      const dNew = minDistance(y);
      if (dNew <= TOL.dist && dNew <= dist) return done("converged_distance");
      dist = dNew;
      if (gn <= TOL.grad) return done("converged_gradient");
    }
  }

  /* ---- predictions: the basins of Thm 2 / 8 (R^2) and Thms A / B (R^3), read off the data ---------- */
  function predict2(th) {
    const r = regime();
    if (r === 0) return { basin: null, class: null, note: "p + q = 1: Thms 2 and 8 do not apply" };
    let margin = Infinity;
    for (const basin of DATA.basins[regimeKey()]) {
      if (basin.pieces === null) return { basin: basin.name, class: basin.class, margin: margin };
      for (const piece of basin.pieces) {
        let ok = true;
        for (const cond of piece) {
          const v = GEN[cond[0]](th[0], th[1]);
          if (!OPS[cond[1]](v)) { ok = false; break; }
          if (cond[1] !== "==") margin = Math.min(margin, Math.abs(v));
        }
        if (ok) return { basin: basin.name, class: basin.class, margin: margin };
      }
    }
    throw new Error("the basins do not cover the plane");
  }
  function scaledPhi(ln, z) {
    /* (phi, phi') at z, divided by the larger magnitude: q has the sign of q(phi), and a, y on the line are
       homogeneous of degree 0 in (phi, phi') (checked in the tests), so nothing overflows */
    const ph = GEN.phi(ln.alpha, ln.beta, z);
    const m = Math.max(Math.abs(ph[0]), Math.abs(ph[1]));
    return m > 0 && isFinite(m) ? [ph[0] / m, ph[1] / m] : [NaN, NaN];
  }
  function line(e0, a0) {
    const z0 = GEN.z_of(e0, a0), l0 = GEN.ell_of(a0);
    const ln = { z0: z0, l0: l0, alpha: NaN, beta: NaN, fate: null, rel: null };
    if (!(z0 > AIRY.a1)) { ln.fate = "C"; return ln; }                // z0 <= a_1: the line crosses C (Prop. 3)
    ln.alpha = GEN.alpha0(z0, l0); ln.beta = GEN.beta0(z0, l0);
    ln.rel = Math.abs(ln.beta) / GEN.beta_scale(z0, l0);
    if (!isFinite(ln.rel)) ln.fate = "outside the Airy table";
    else if (ln.rel < 1e-12) ln.fate = "S";                         // beta = 0 to float64 accuracy
    else ln.fate = ln.beta > 0 ? "axis" : "C";
    return ln;
  }
  function aInf(ln) {
    /* the end (0, a_inf) of a line that reaches the axis: the root z* of the decreasing q on (z0, oo) */
    const qs = function (z) { const ph = scaledPhi(ln, z); return GEN.q_phi(ph[0], ph[1], z); };
    let lo = ln.z0, step = 1, hi = lo + step;
    while (qs(hi) > 0) {
      lo = hi; step *= 2; hi = lo + step;
      if (hi > AIRY.hi) { hi = AIRY.hi; if (!(qs(hi) < 0)) return NaN; break; }
    }
    for (let i = 0; i < 200 && hi - lo > 1e-15 * (1 + Math.abs(lo)); i++) {
      const mid = 0.5 * (lo + hi);
      if (qs(mid) > 0) lo = mid; else hi = mid;
    }
    const ph = scaledPhi(ln, 0.5 * (lo + hi));
    return GEN.a_phi(ph[0], ph[1], 0.5 * (lo + hi));
  }
  function separatrixRoot(a0) {
    /* where S meets the slice a = a0: (z_S, l) with z_S the root of l_S(z) = l(a0) on (a_1, oo) (l_S decreases from
       +oo to -oo); null when it lies outside the Airy table */
    const L = GEN.ell_of(a0);
    let lo = AIRY.a1 + 1e-9, hi = 0;
    if (!(GEN.ell_S(lo) > L)) return null;
    hi = lo + 1;
    while (GEN.ell_S(hi) > L) { lo = hi; hi += 1; if (hi > AIRY.hi) return null; }
    for (let i = 0; i < 200 && hi - lo > 1e-15 * (1 + Math.abs(lo)); i++) {
      const mid = 0.5 * (lo + hi);
      if (GEN.ell_S(mid) > L) lo = mid; else hi = mid;
    }
    return [0.5 * (lo + hi), L];
  }
  function separatrixY(a0) { const r = separatrixRoot(a0); return r ? GEN.y_of(r[0], r[1]) : NaN; }     // y_S(a0) = e^2
  function separatrixE(a0) { const r = separatrixRoot(a0); return r ? GEN.e_of(r[0], r[1]) : NaN; }     // e_S(a0) >= 0
  const W_SIGN = { "w>0": 1, "w=0": 0, "(w_sad,0)": -1, "w_sad": -1, "(-inf,w_sad)": -1 };
  const SAD_SIGN = { "w>0": 1, "w=0": 1, "(w_sad,0)": 1, "w_sad": 0, "(-inf,w_sad)": -1 };
  const BRANCH = { mid: "(w_sad,0)", low: "(-inf,w_sad)" };
  function wSide(w0) {
    if (w0 > 0) return "w>0";
    if (w0 === 0) return "w=0";
    return w0 > GEN.w_sad ? "(w_sad,0)" : (w0 === GEN.w_sad ? "w_sad" : "(-inf,w_sad)");
  }
  function datum3(th, rowCache) {
    /* the sign datum of Thms A/B (symbolic.basins_r3.Datum) of a start, or {undecided: why} */
    const d = { e_zero: th[0] === 0, w_side: wSide(th[1]), U: 0, S_side: 0, race: null, a_inf: null };
    if (d.e_zero) return d;
    d.U = sgn(GEN.U(th[0], th[2]));
    const row = rowCache || lineData(th[0], th[2]);
    if (row.undecided) return { undecided: row.undecided };
    d.S_side = row.S_side;
    if (d.S_side < 0 && th[1] < 0 && d.U !== 0) {
      d.a_inf = row.a_inf;
      const r = GEN.race(th[0], th[1], th[2], row.a_inf);
      if (!(Math.abs(r) > 1e-12)) return { undecided: "on the race threshold w = w_c to float64 accuracy" };
      d.race = sgn(r);
    }
    return d;
  }
  function lineData(e0, a0) {
    const ln = line(e0, a0);
    if (ln.fate === "S") return { undecided: "on the separatrix S to float64 accuracy" };
    if (ln.fate === "outside the Airy table") return { undecided: "the line's Airy values are outside the table" };
    const out = { S_side: ln.fate === "axis" ? -1 : 1, a_inf: null, fate: ln.fate };
    if (ln.fate === "axis") {
      out.a_inf = aInf(ln);
      if (isNaN(out.a_inf)) return { undecided: "the line reaches the a-axis beyond z = 100 (next to S)" };
    }
    return out;
  }
  function atom(at, d) {
    const name = at[0];
    if (name === "e") return d.e_zero ? 0 : 1;
    if (name === "U") return d.U;
    if (name === "S") return d.e_zero ? null : d.S_side;
    if (name === "w") return W_SIGN[d.w_side];
    if (name === "w-w_sad") return SAD_SIGN[d.w_side];
    if (name === "w-w_c" || name === "w-w_c'") {
      const branch = name === "w-w_c" ? "(w_sad,0)" : "(-inf,w_sad)";
      if (d.e_zero || d.S_side >= 0) return null;
      if (d.w_side === branch) return d.race === null ? null : DATA.r3.f_sign[branch] * d.race;
      const order = DATA.r3.w_sides;
      return order.indexOf(d.w_side) < order.indexOf(branch) ? 1 : -1;
    }
    if (name === "w-w_st_mid" || name === "w-w_st_low") return null;   // the station thresholds: measure zero,
    throw new Error("unknown condition " + name);                        // never met in float64
  }
  function predict3(th, rowCache) {
    const r = regime();
    if (r === 0) return { basin: null, class: null, note: "p + q = 1: Thms A and B do not apply" };
    const d = datum3(th, rowCache);
    if (d.undecided) return { basin: null, class: null, note: d.undecided };
    for (const set of DATA.r3.theorems[String(r)]) {
      if (set.pieces === null) return { basin: r > 0 ? "Thm A" : "Thm B", class: set.class, datum: d };
      for (const piece of set.pieces) {
        let ok = true;
        for (const at of piece) {
          const v = atom(at, d);
          if (v === null || !OPS[at[1]](v)) ok = false;
          if (!ok) break;
        }
        if (ok) return { basin: r > 0 ? "Thm A" : "Thm B", class: set.class, datum: d };
      }
    }
    throw new Error("the sets do not cover R^3");
  }

  /* ---- drawing ---------------------------------------------------------------------------------- */
  const base = byId("xp-base"), over = byId("xp-over"), ae = byId("xp-ae"), aeOver = byId("xp-ae-over");
  const PAD = 34;
  function px(frame, canvas, hor, ver) {
    return [PAD + (hor - frame.hlo) / (frame.hhi - frame.hlo) * (canvas.width - 2 * PAD),
            canvas.height - PAD - (ver - frame.vlo) / (frame.vhi - frame.vlo) * (canvas.height - 2 * PAD)];
  }
  function unpx(frame, canvas, x, y) {
    return [frame.hlo + (x - PAD) / (canvas.width - 2 * PAD) * (frame.hhi - frame.hlo),
            frame.vlo + (canvas.height - PAD - y) / (canvas.height - 2 * PAD) * (frame.vhi - frame.vlo)];
  }
  function axes(ctx, frame, canvas, hname, vname) {
    ctx.save();
    ctx.strokeStyle = "#444"; ctx.fillStyle = "#222"; ctx.lineWidth = 1; ctx.font = "12px DejaVu Sans, sans-serif";
    const p0 = px(frame, canvas, frame.hlo, frame.vlo), p1 = px(frame, canvas, frame.hhi, frame.vhi);
    ctx.strokeRect(p0[0], p1[1], p1[0] - p0[0], p0[1] - p1[1]);
    for (let v = Math.ceil(frame.hlo); v <= frame.hhi; v++) {
      const pc = px(frame, canvas, v, frame.vlo);
      ctx.beginPath(); ctx.moveTo(pc[0], pc[1]); ctx.lineTo(pc[0], pc[1] + 4); ctx.stroke();
      ctx.fillText(String(v), pc[0] - 4, pc[1] + 16);
    }
    for (let v = Math.ceil(frame.vlo); v <= frame.vhi; v++) {
      const pc = px(frame, canvas, frame.hlo, v);
      ctx.beginPath(); ctx.moveTo(pc[0], pc[1]); ctx.lineTo(pc[0] - 4, pc[1]); ctx.stroke();
      ctx.fillText(String(v), pc[0] - 18, pc[1] + 4);
    }
    ctx.font = "italic 14px DejaVu Serif, serif";
    ctx.fillText(hname, canvas.width - PAD - 10, canvas.height - 6);
    ctx.fillText(vname, 6, PAD - 10);
    ctx.restore();
  }
  function clip(ctx, frame, canvas) {
    /* save the context and clip to the frame (call ctx.restore() after drawing) */
    const p0 = px(frame, canvas, frame.hlo, frame.vlo), p1 = px(frame, canvas, frame.hhi, frame.vhi);
    ctx.save(); ctx.beginPath(); ctx.rect(p0[0], p1[1], p1[0] - p0[0], p0[1] - p1[1]); ctx.clip();
  }
  function contour(ctx, frame, canvas, fn, n, keep) {
    /* the zero set of fn(hor, ver) by marching squares on an n x n grid of cell centres; keep(hor, ver)
       (optional) keeps a segment by its midpoint */
    const hs = [], vs = [], vals = [];
    for (let i = 0; i <= n; i++) {
      hs.push(frame.hlo + (i + 0.5) / (n + 1) * (frame.hhi - frame.hlo));
      vs.push(frame.vlo + (i + 0.5) / (n + 1) * (frame.vhi - frame.vlo));
    }
    for (let j = 0; j <= n; j++) { const row = []; for (let i = 0; i <= n; i++) row.push(fn(hs[i], vs[j])); vals.push(row); }
    ctx.beginPath();
    for (let j = 0; j < n; j++) for (let i = 0; i < n; i++) {
      const pc = [vals[j][i], vals[j][i + 1], vals[j + 1][i + 1], vals[j + 1][i]];
      if (!pc.every(isFinite)) continue;
      const corners = [[hs[i], vs[j]], [hs[i + 1], vs[j]], [hs[i + 1], vs[j + 1]], [hs[i], vs[j + 1]]];
      const cuts = [];
      for (let k = 0; k < 4; k++) {
        const u = pc[k], v = pc[(k + 1) % 4];
        if ((u < 0) !== (v < 0)) {
          const s = u / (u - v), P0 = corners[k], P1 = corners[(k + 1) % 4];
          cuts.push([P0[0] + s * (P1[0] - P0[0]), P0[1] + s * (P1[1] - P0[1])]);
        }
      }
      for (let k = 0; k + 1 < cuts.length; k += 2) {
        const mid = [0.5 * (cuts[k][0] + cuts[k + 1][0]), 0.5 * (cuts[k][1] + cuts[k + 1][1])];
        if (keep && !keep(mid[0], mid[1])) continue;
        const P0 = px(frame, canvas, cuts[k][0], cuts[k][1]), P1 = px(frame, canvas, cuts[k + 1][0], cuts[k + 1][1]);
        ctx.moveTo(P0[0], P0[1]); ctx.lineTo(P1[0], P1[1]);
      }
    }
    ctx.stroke();
  }
  function shade(ctx, frame, canvas, classOf, cell) {
    const W = canvas.width - 2 * PAD, Hh = canvas.height - 2 * PAD;
    for (let y = 0; y < Hh; y += cell) {
      let rowCache = null;
      for (let x = 0; x < W; x += cell) {
        const pt = unpx(frame, canvas, PAD + x + cell / 2, PAD + y + cell / 2);
        const cls = classOf(pt[0], pt[1], function (pc) { if (pc !== undefined) rowCache = pc; return rowCache; });
        ctx.fillStyle = COL[cls] || COL.none;
        ctx.fillRect(PAD + x, PAD + y, cell, cell);
      }
    }
  }
  function dot(ctx, frame, canvas, hor, ver, colour, radius) {
    const pc = px(frame, canvas, hor, ver);
    ctx.fillStyle = colour; ctx.beginPath(); ctx.arc(pc[0], pc[1], radius, 0, 6.2832); ctx.fill();
  }
  function pieceHolds(conds, hor, ver, skip) {
    for (const cond of conds) {
      if (cond === skip) continue;
      if (!OPS[cond[1]](GEN[cond[0]](ver, hor))) return false;
    }
    return true;
  }
  function drawCriticalSets(ctx, frame, canvas, tag, extra) {
    /* every critical set from its equations: a set of one equation is the zero set of its residual (kept where
       its condition holds), a set of two equations is drawn at its solved points */
    const argsOf = function (hor, ver) {
      return tag === "critical2" ? [state.pv, state.qv, ver, hor] : [state.pv, state.qv, ver, hor, state.a0];
    };
    for (const cs of DATA[tag]) {
      if (cs.points) {
        const pts = tag === "critical2" ? GEN[cs.points]() : GEN[cs.points](state.a0);
        for (let i = 0; i + 1 < pts.length; i += 2) if (isFinite(pts[i])) {
          dot(ctx, frame, canvas, pts[i + 1], pts[i], cs.class === "saddle" && cs.name.indexOf("station") < 0 ? "#000" : LINE.C, 5);
        }
        continue;
      }
      const res = cs.eqs[0];
      const keep = cs.cond ? function (hor, ver) { return OPS[cs.cond[1]](GEN[cs.cond[0]].apply(null, argsOf(hor, ver))); } : null;
      ctx.save();
      if (cs.class === "global_min") { ctx.strokeStyle = LINE.star; ctx.lineWidth = 2; }
      else { ctx.strokeStyle = cs.class === "local_min" ? LINE.min : LINE.max; ctx.lineWidth = 3.2; }
      contour(ctx, frame, canvas, function (hor, ver) { return GEN[res].apply(null, argsOf(hor, ver)); }, 241, keep);
      ctx.restore();
    }
    if (extra) extra();
  }
  function drawR2() {
    const ctx = base.getContext("2d");
    ctx.clearRect(0, 0, base.width, base.height);
    const r = regime();
    if (r !== 0) {
      shade(ctx, VIEW, base, function (hor, ver) { return predict2([ver, hor]).class; }, 2);
      // the measure-zero pieces of the basins (I_sad: e = +-g(w); the e-axis piece of I_min): zero sets
      for (const basin of DATA.basins[regimeKey()]) {
        if (!basin.pieces || basin.class === "local_max") continue;
        for (const piece of basin.pieces) for (const cond of piece) {
          if (cond[1] !== "==") continue;
          ctx.save();
          ctx.strokeStyle = basin.class === "saddle" ? LINE.g : INK[basin.class];
          ctx.lineWidth = basin.class === "saddle" ? 2.2 : 1.6;
          contour(ctx, VIEW, base, function (hor, ver) { return GEN[cond[0]](ver, hor); }, 241,
                  function (hor, ver) { return pieceHolds(piece, hor, ver, cond); });
          ctx.restore();
        }
      }
    }
    // energy contours E = E_sad + k/2 (E_sad thicker: the level of the saddle)
    ctx.save();
    ctx.strokeStyle = LINE.contour; ctx.globalAlpha = 0.55;
    for (let k = -8; k <= 8; k++) {
      ctx.lineWidth = k === 0 ? 1.4 : 0.7;
      contour(ctx, VIEW, base, function (hor, ver) { return hor === 0 ? NaN : GEN.E(ver, hor) - GEN.E_sad - 0.5 * k; }, 181);
    }
    ctx.restore();
    drawCriticalSets(ctx, VIEW, base, "critical2");
    axes(ctx, VIEW, base, "w", "e");
  }
  function sliceClass(hor, ver, rowCache) {
    const th = [ver, hor, state.a0];
    let row = rowCache();
    if (!row || row.ver !== ver) {
      row = ver === 0 ? { ver: ver, data: null } : { ver: ver, data: lineData(ver, state.a0) };
      rowCache(row);
    }
    const pr = predict3(th, row.data);
    return pr.class || "none";
  }
  function thresholdCurve() {
    /* w_c(e, a0) (p+q > 1, on (w_sad, 0)) or w_c'(e, a0) (p+q < 1, on (-oo, w_sad)): where the race changes
       sign along a row of the slice inside R (the line reaches the axis) */
    const pts = [], r = regime();
    const n = 240;
    for (let j = 0; j <= n; j++) {
      const ver = VIEW.vlo + (j + 0.5) / (n + 1) * (VIEW.vhi - VIEW.vlo);
      if (ver === 0) continue;
      const row = lineData(ver, state.a0);
      if (row.undecided || row.S_side >= 0) { pts.push(null); continue; }
      let lo = r > 0 ? GEN.w_sad : VIEW.hlo, hi = r > 0 ? -1e-12 : GEN.w_sad;
      const f = function (hor) { return GEN.race(ver, hor, state.a0, row.a_inf); };
      if (sgn(f(lo)) === sgn(f(hi))) { pts.push(null); continue; }
      for (let i = 0; i < 100; i++) { const mid = 0.5 * (lo + hi); if (sgn(f(mid)) === sgn(f(lo))) lo = mid; else hi = mid; }
      pts.push([0.5 * (lo + hi), ver]);
    }
    return pts;
  }
  function drawR3() {
    const ctx = base.getContext("2d");
    ctx.clearRect(0, 0, base.width, base.height);
    const r = regime();
    if (r !== 0) shade(ctx, VIEW, base, sliceClass, 2);
    const eS0 = separatrixE(state.a0);
    ctx.save();
    if (isFinite(eS0)) {
      for (const s of [1, -1]) {
        const eS = s * eS0;
        const L = px(VIEW, base, VIEW.hlo, eS), R = px(VIEW, base, VIEW.hhi, eS), M = px(VIEW, base, 0, eS);
        ctx.strokeStyle = LINE.S; ctx.lineWidth = 1.6; ctx.setLineDash([]);
        ctx.beginPath(); ctx.moveTo(L[0], L[1]); ctx.lineTo(R[0], R[1]); ctx.stroke();
        if (r > 0) {                                   // S x [0, oo): the unbounded starts (Thm A)
          ctx.strokeStyle = INK.unbounded; ctx.lineWidth = 3.5;
          ctx.beginPath(); ctx.moveTo(M[0], M[1]); ctx.lineTo(R[0], R[1]); ctx.stroke();
        }
      }
    }
    if (r !== 0) {
      ctx.strokeStyle = LINE.wc; ctx.lineWidth = 2; ctx.beginPath();
      let pen = false;
      for (const pt of thresholdCurve()) {
        if (!pt) { pen = false; continue; }
        const pc = px(VIEW, base, pt[0], pt[1]);
        if (pen) ctx.lineTo(pc[0], pc[1]); else ctx.moveTo(pc[0], pc[1]);
        pen = true;
      }
      ctx.stroke();
    }
    ctx.restore();
    drawCriticalSets(ctx, VIEW, base, "critical3");
    axes(ctx, VIEW, base, "w", "e");
    drawAE();
  }
  function drawAE() {
    const ctx = ae.getContext("2d");
    ctx.clearRect(0, 0, ae.width, ae.height);
    clip(ctx, AE, ae);
    // S: (a_S(z), +-e_S(z)) for z from just above a_1 to about 60, the steps growing geometrically (S is steep at a_1)
    ctx.strokeStyle = LINE.S; ctx.lineWidth = 1.8;
    for (const s of [1, -1]) {
      ctx.beginPath();
      let pen = false;
      for (let i = 1, dz = 1e-3; i <= 600; i++, dz *= 1.0186) {
        const z = AIRY.a1 + dz;
        const hor = GEN.a_S(z), ver = s * GEN.e_S(z);
        if (!isFinite(hor) || !isFinite(ver)) { pen = false; continue; }
        const pc = px(AE, ae, hor, ver);
        if (pen) ctx.lineTo(pc[0], pc[1]); else ctx.moveTo(pc[0], pc[1]);
        pen = true;
      }
      ctx.stroke();
    }
    const st = criticalSet("critical3", "Theta_station");
    ctx.strokeStyle = LINE.C; ctx.lineWidth = 1.5;
    contour(ctx, AE, ae, function (hor, ver) { return GEN[st.eqs[0]](state.pv, state.qv, ver, GEN.w_sad, hor); }, 161);
    ctx.strokeStyle = LINE.N;
    contour(ctx, AE, ae, function (hor, ver) { return GEN.N(ver, hor); }, 161);
    ctx.restore();
    axes(ctx, AE, ae, "a", "e");
    drawAEOverlay();
  }
  function drawAEOverlay() {
    const ctx = aeOver.getContext("2d");
    ctx.clearRect(0, 0, aeOver.width, aeOver.height);
    const T = px(AE, aeOver, state.a0, AE.vhi), B = px(AE, aeOver, state.a0, AE.vlo);
    ctx.save(); ctx.strokeStyle = "#000"; ctx.setLineDash([5, 4]); ctx.lineWidth = 1.2;
    ctx.beginPath(); ctx.moveTo(T[0], T[1]); ctx.lineTo(B[0], B[1]); ctx.stroke(); ctx.restore();
    for (const pth of state.paths) if (pth.dim === 3) polyline(ctx, AE, aeOver, pth.points.map(function (th) { return [th[2], th[0]]; }), pth.colour);
  }
  function polyline(ctx, frame, canvas, pts, colour) {
    clip(ctx, frame, canvas); ctx.strokeStyle = colour; ctx.lineWidth = 2; ctx.beginPath();
    pts.forEach(function (pt, i) { const pc = px(frame, canvas, pt[0], pt[1]); if (i) ctx.lineTo(pc[0], pc[1]); else ctx.moveTo(pc[0], pc[1]); });
    ctx.stroke();
    const s = px(frame, canvas, pts[0][0], pts[0][1]), f = px(frame, canvas, pts[pts.length - 1][0], pts[pts.length - 1][1]);
    ctx.fillStyle = colour; ctx.beginPath(); ctx.arc(s[0], s[1], 3.5, 0, 6.2832); ctx.fill();
    ctx.strokeStyle = "#000"; ctx.lineWidth = 1.2; ctx.beginPath(); ctx.arc(f[0], f[1], 4.5, 0, 6.2832); ctx.stroke();
    ctx.restore();
  }
  function drawOverlay() {
    const ctx = over.getContext("2d");
    ctx.clearRect(0, 0, over.width, over.height);
    for (const pth of state.paths) if ((pth.dim === 2) === (state.view === "r2")) {
      polyline(ctx, VIEW, over, pth.points.map(function (th) { return [th[1], th[0]]; }), pth.colour);
    }
    if (state.cloud && state.cloud.view === state.view) {
      for (const pc of state.cloud.points) dot(ctx, VIEW, over, pc[1], pc[0], INK[pc[2]] || INK.null, 1.8);
    }
    if (state.view === "r3") drawAEOverlay();
  }
  function redraw() {
    if (state.view === "r2") drawR2(); else drawR3();
    drawOverlay();
    legend();
  }

  /* ---- one start: integrate, draw, report -------------------------------------------------------- */
  function fmt(x) { return x === null || x === undefined ? "\u2013" : (typeof x === "number" ? x.toPrecision(6) : String(x)); }
  function run(th0) {
    const t0 = performance.now();
    const pred = th0.length === 2 ? predict2(th0) : predict3(th0);
    const res = integrate(th0);
    const converged = res.status === "stationary" || res.status.indexOf("converged") === 0;
    const cls = converged ? limitClass(res.end) : null;
    const t1 = performance.now();
    const colour = INK[cls] || INK.null;
    state.paths.push({ dim: th0.length, points: res.path, colour: colour });
    drawOverlay();
    const t2 = performance.now();
    const out = { start: th0, predicted: pred, integrated: { class: cls, status: res.status, steps: res.steps,
                  rejected: res.rejected, evals: res.evals, t: res.t, limit: res.end, drift: res.drift },
                  agree: pred.class === null ? null : pred.class === cls, ms_compute: t1 - t0, ms_total: t2 - t0 };
    state.last = out;
    report(out);
    // until the frame after the one that paints the trajectory began (an upper bound on click-to-picture)
    requestAnimationFrame(function () { requestAnimationFrame(function () { out.ms_frame = performance.now() - t0; }); });
    return out;
  }
  function report(out) {
    const rows = [];
    const names = out.start.length === 2 ? ["e", "w"] : ["e", "w", "a"];
    rows.push(["start", "(" + names.join(", ") + ") = (" + out.start.map(fmt).join(", ") + ")"]);
    const pr = out.predicted;
    rows.push(["predicted (" + (out.start.length === 2 ? (regime() > 0 ? "Thm 2" : "Thm 8") : (regime() > 0 ? "Thm A" : "Thm B")) + ")",
               pr.class ? (pr.basin ? pr.basin + ": " : "") + pr.class : "no prediction: " + pr.note]);
    const it = out.integrated;
    rows.push(["integrated limit", (it.class || "not classified") + " at (" + it.limit.map(fmt).join(", ") + ")"]);
    rows.push(["integration", it.status + ", " + it.steps + " steps (" + it.rejected + " rejected), t = " + fmt(it.t)]);
    rows.push(["energy drift", it.drift === null ? "\u2013 (E undefined on w = 0)" : it.drift.toExponential(2)]);
    rows.push(["agree", out.agree === null ? "\u2013" : (out.agree ? "<span class=\"xp-agree\">yes</span>" : "<span class=\"xp-disagree\">no</span>")]);
    rows.push(["time", out.ms_total.toFixed(1) + " ms (integration " + out.ms_compute.toFixed(1) + " ms)"]);
    byId("xp-result").innerHTML = rows.map(function (r) { return "<tr><th>" + r[0] + "</th><td>" + r[1] + "</td></tr>"; }).join("");
    byId("xp-result").setAttribute("data-class", it.class || "");
    byId("xp-result").setAttribute("data-predicted", pr.class || "");
  }

  /* ---- the Gaussian cloud ------------------------------------------------------------------------ */
  function mulberry32(seed) {
    let s = seed >>> 0;
    return function () {
      s = (s + 0x6D2B79F5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296 + 1 / 8589934592;   // in (0, 1): never 0
    };
  }
  function cloud(n, seed, sigmaText) {
    const t0 = performance.now();
    const rnd = mulberry32(seed), sd = fraction(sigmaText), dim = state.view === "r2" ? 2 : 3;
    const counts = { sets: {}, flow: {} }, points = [];
    let agree = 0;
    for (let i = 0; i < n; i++) {
      const th = [];
      for (let k = 0; k < dim; k++) th.push(sd * GEN.normal(rnd(), rnd()));
      const pr = dim === 2 ? predict2(th) : predict3(th);
      const res = integrate(th);
      const converged = res.status === "stationary" || res.status.indexOf("converged") === 0;
      const cls = converged ? limitClass(res.end) : null;
      counts.sets[pr.class] = (counts.sets[pr.class] || 0) + 1;
      counts.flow[cls] = (counts.flow[cls] || 0) + 1;
      if (pr.class === cls) agree++;
      points.push([th[0], th[1], cls]);
    }
    const out = { n: n, seed: seed, sd: sigmaText, dim: dim, counts: counts, agree: agree, ms: performance.now() - t0,
                  certified: dim === 2 && regime() !== 0 && DATA.prob[regimeKey()] ? DATA.prob[regimeKey()][sigmaText] : null };
    state.cloud = { view: state.view, points: points, report: out };
    drawOverlay();
    cloudReport(out);
    return out;
  }
  function noCloudReport() { byId("xp-cloud-table").innerHTML = "<tr><td class=\"none\">run a cloud</td></tr>"; }
  function cloudReport(out) {
    const classes = out.dim === 2 ? ["local_min", "global_min", "saddle", "local_max"]
                                  : ["local_min", "global_min", "saddle", "local_max", "station", "unbounded"];
    const rows = ["<tr><th>limit</th><th>by the sets</th><th>integrated</th><th>certified P (l2g prob)</th><th>z</th></tr>"];
    for (const pc of classes.concat(["null"])) {
      const ns = out.counts.sets[pc] || 0, nf = out.counts.flow[pc] || 0;
      if (pc === "null" && !ns && !nf) continue;
      let cert = "\u2013", z = "";
      if (out.certified && out.certified[pc]) {
        const v = out.certified[pc];
        cert = v.value + " \u00b1 " + v.error;
        z = GEN.z_score(nf, out.n, Number(v.value)).toFixed(2);
      } else if (out.certified && (pc === "saddle" || pc === "local_max")) cert = "0 (measure zero)";
      rows.push("<tr data-class=\"" + pc + "\"><td>" + (pc === "null" ? "not classified" : pc) + "</td><td class=\"num\">" +
                (ns / out.n).toFixed(4) + "</td><td class=\"num\">" + (nf / out.n).toFixed(4) + "</td><td>" + cert +
                "</td><td class=\"num\">" + z + "</td></tr>");
    }
    rows.push("<tr><td colspan=\"5\" class=\"note\">" + out.n + " starts, seed " + out.seed + ", \u03c3 = " + out.sd +
              ", " + out.ms.toFixed(0) + " ms. " + (out.dim === 2
                ? (out.certified ? "Certified: arb enclosures computed when the page was built (they depend on (p, q) only through the regime)." : "No certified value (p + q = 1).")
                : "R\u00b3: l2g basins gives certified bounds; they are not tabulated here.") + "</td></tr>");
    byId("xp-cloud-table").innerHTML = rows.join("");
  }

  /* ---- controls ---------------------------------------------------------------------------------- */
  function legend() {
    const items = state.view === "r2" ? [
      ["sw", COL.local_min, "I<sub>min</sub>: flow to a local minimum"], ["sw", COL.global_min, "I<sup>*</sup>: flow to a global minimum"],
      ["ln", LINE.g, "e = \u00b1g(w) (I<sub>sad</sub>, E = E<sub>sad</sub>)"], ["ln", LINE.star, "\u0398<sup>*</sup> (global minima)"],
      ["ln", LINE.min, "\u0398<sub>min</sub> (local minima)"], ["ln", LINE.max, "\u0398<sub>max</sub> (local maxima; I<sub>max</sub>)"],
      ["ln", "#000", "\u0398<sub>sad</sub> (the saddle)"], ["ln", LINE.contour, "energy contours E = E<sub>sad</sub> + k/2"],
    ].concat(regime() > 0 ? [["ln", INK.local_min, "{w = 0} (the e-axis): in I<sub>min</sub>, the flow keeps w = 0 (Thm 2)"]]
                          : (regime() < 0 ? [["ln", "#fff", "{w = 0} (the e-axis): in I<sup>*</sup> (Thm 8), not drawn"]] : [])) : [
      ["sw", COL.local_min, "local minimum (Thm A/B)"], ["sw", COL.global_min, "global minimum"],
      ["ln", LINE.S, "S \u00d7 R<sub>w</sub> in the slice: e = \u00b1e<sub>S</sub>(a<sub>0</sub>)"],
      ["ln", INK.unbounded, "S \u00d7 [0, \u221e): unbounded (p+q > 1)"], ["ln", LINE.wc, "race threshold w<sub>pc</sub> (w<sub>pc</sub>&prime; for p+q < 1)"],
      ["ln", LINE.star, "\u0398<sup>*</sup> in the slice"], ["ln", LINE.min, "\u0398<sub>min</sub>"], ["ln", LINE.max, "\u0398<sub>max</sub>"],
      ["ln", LINE.C, "\u0398<sub>station</sub> (dots), C in the (a, e) plane"], ["ln", LINE.N, "N (e-nullcline)"],
    ];
    byId("xp-legend").innerHTML = "<ul>" + items.map(function (it) {
      return "<li><span class=\"sw\" style=\"background:" + (it[0] === "sw" ? it[1] : "linear-gradient(" + it[1] + "," + it[1] + ") center/100% 3px no-repeat") + "\"></span>" + it[2] + "</li>";
    }).join("") + "</ul>";
  }
  function setRegimeBadge() {
    const r = regime(), el = byId("xp-regime");
    el.textContent = r > 0 ? "p + q > 1 (Thm 2, Thm A)" : (r < 0 ? "p + q < 1 (Thm 8, Thm B)" : "p + q = 1 (no theorem)");
  }
  function showChain() {
    byId("xp-p").value = state.pv; byId("xp-q").value = state.qv; byId("xp-p-range").value = state.pv; byId("xp-q-range").value = state.qv;
    setRegimeBadge();
  }
  function setChain(pv, qv) {
    if (!(pv > 0 && pv < 1 && qv > 0 && qv < 1)) return false;
    state.pv = pv; state.qv = qv; state.paths = []; state.cloud = null; noCloudReport();
    showChain(); redraw(); updateLink();
    return true;
  }
  function setView(v) {
    state.view = v;
    byId("xp-view-" + v).checked = true;
    byId("xp-ae-wrap").style.display = v === "r3" ? "" : "none";
    // the cloud's table belongs to the view it was run in (as its dots do)
    if (state.cloud && state.cloud.view === v) cloudReport(state.cloud.report);
    else noCloudReport();
    redraw(); updateLink();
  }
  function setA0(v) {
    if (!isFinite(v)) return;
    state.a0 = v; byId("xp-a0").value = v; byId("xp-a0-range").value = v;
    if (state.view === "r3") { drawR3(); drawOverlay(); }
    updateLink();
  }
  function startFromFields() {
    const e0 = Number(byId("xp-e0").value), w0 = Number(byId("xp-w0").value);
    if (!isFinite(e0) || !isFinite(w0)) return null;
    return run(state.view === "r2" ? [e0, w0] : [e0, w0, state.a0]);
  }
  function onClick(ev) {
    /* the start is the clicked point rounded to 1/1000 (a pixel is about 1/100 wide): the fields show it in full,
       and typing it again gives the same start */
    const rect = over.getBoundingClientRect();
    const pt = unpx(VIEW, over, (ev.clientX - rect.left) * over.width / rect.width, (ev.clientY - rect.top) * over.height / rect.height);
    const e0 = thousandths(pt[1]), w0 = thousandths(pt[0]);
    byId("xp-e0").value = e0; byId("xp-w0").value = w0;
    run(state.view === "r2" ? [e0, w0] : [e0, w0, state.a0]);
  }
  function thousandths(x) { return Math.round(x * 1000) / 1000; }
  function updateLink() {
    /* a link that opens the page in this state: explorer.html?p=..&q=..&view=..(&a0=..) */
    const link = byId("xp-link");
    if (link) link.href = "?p=" + state.pv + "&q=" + state.qv + "&view=" + state.view + (state.view === "r3" ? "&a0=" + state.a0 : "");
  }
  function fromUrl() {
    /* ?p=&q= (decimals or fractions, in (0, 1)), &view=r2|r3 and &a0= open the page in that state; a value that is
       not valid is ignored (the default stays) */
    const params = new URLSearchParams(window.location.search);
    const pv = params.has("p") ? fraction(params.get("p")) : state.pv, qv = params.has("q") ? fraction(params.get("q")) : state.qv;
    if (pv > 0 && pv < 1 && qv > 0 && qv < 1) { state.pv = pv; state.qv = qv; }
    const a0 = params.has("a0") ? fraction(params.get("a0")) : NaN;
    if (isFinite(a0)) state.a0 = a0;
    return params.get("view") === "r3" ? "r3" : "r2";
  }
  function init() {
    const sel = byId("xp-sigma");
    for (const s of DATA.sigmas) { const o = document.createElement("option"); o.value = s; o.textContent = s; sel.appendChild(o); }
    sel.value = "1/2";
    byId("xp-p-range").addEventListener("input", function () { setChain(Number(byId("xp-p-range").value), state.qv); });
    byId("xp-q-range").addEventListener("input", function () { setChain(state.pv, Number(byId("xp-q-range").value)); });
    byId("xp-p").addEventListener("change", function () { if (!setChain(Number(byId("xp-p").value), state.qv)) byId("xp-p").value = state.pv; });
    byId("xp-q").addEventListener("change", function () { if (!setChain(state.pv, Number(byId("xp-q").value))) byId("xp-q").value = state.qv; });
    byId("xp-view-r2").addEventListener("change", function () { setView("r2"); });
    byId("xp-view-r3").addEventListener("change", function () { setView("r3"); });
    byId("xp-a0-range").addEventListener("input", function () { setA0(Number(byId("xp-a0-range").value)); });
    byId("xp-a0").addEventListener("change", function () { setA0(Number(byId("xp-a0").value)); });
    byId("xp-go").addEventListener("click", startFromFields);
    byId("xp-clear").addEventListener("click", function () { state.paths = []; state.cloud = null; noCloudReport(); drawOverlay(); });
    byId("xp-cloud").addEventListener("click", function () {
      cloud(Math.max(1, Math.min(5000, Math.floor(Number(byId("xp-n").value)) || 400)), Math.floor(Number(byId("xp-seed").value)) >>> 0, sel.value);
    });
    over.addEventListener("click", onClick);
    aeOver.addEventListener("click", function (ev) {
      const rect = aeOver.getBoundingClientRect();
      const pt = unpx(AE, aeOver, (ev.clientX - rect.left) * aeOver.width / rect.width, (ev.clientY - rect.top) * aeOver.height / rect.height);
      setA0(Math.round(pt[0] * 100) / 100);
    });
    const view = fromUrl();
    showChain();
    setA0(state.a0);                  // its fields (the view is not set yet: nothing is drawn twice)
    setView(view);
  }

  window.L2G = {
    setChain: setChain, setView: setView, setA0: setA0, start: run, cloud: cloud,
    predict: function (th) { return th.length === 2 ? predict2(th) : predict3(th); },
    limitClass: limitClass, separatrixY: separatrixY, lineData: lineData, airy: AIRY.at,
    toPixel: function (e0, w0) {
      const pc = px(VIEW, over, w0, e0), rect = over.getBoundingClientRect();
      return [pc[0] * rect.width / over.width, pc[1] * rect.height / over.height];
    },
    fromPixel: function (x, y) { const pt = unpx(VIEW, over, x, y); return [pt[1], pt[0]]; },
    call: function (name, args) { return GEN[name].apply(null, args); },
    state: state,
  };
  init();
  window.L2G.ready = true;
})();
