// Order statistics for the benchmark's samples.

/** The value at quantile q (0..1) of the samples, nearest rank. */
export function quantile(values, q) {
  const sorted = Float64Array.from(values).sort()
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]
}

export const median = (values) => quantile(values, 0.5)
