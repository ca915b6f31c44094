// Summary statistics of a list of samples: median with min and max (and the quartiles).
export function quantile(sorted, q) {
  if (!sorted.length) return null;
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (i - lo);
}

export function summary(samples) {
  const s = [...samples].sort((a, b) => a - b);
  return {
    median: quantile(s, 0.5), min: s[0] ?? null, max: s[s.length - 1] ?? null,
    p25: quantile(s, 0.25), p75: quantile(s, 0.75), n: s.length,
  };
}
