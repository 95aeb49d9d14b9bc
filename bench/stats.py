# SPDX-License-Identifier: GPL-2.0-only
"""Small statistics for the benchmark reports (standard library only).

bootstrap() is the percentile bootstrap of bench/cc_report.py: blocks
resampled, for statistics such as a geometric mean of ratios or a p99.

paired_ratio() is the method of bench/cost.sh: the cost of configuration A
and of B are measured in the same blocks; per block the log of the ratio of
their block values; the estimate is exp(mean of the logs) and the 95 %
interval exp(mean +- t(0.975, n-1) * sd / sqrt(n)) - a paired t interval on
the log scale, so slow drifts of the machine cancel within a block and the
interval is that of a ratio.

mean_interval() is the t interval of a mean over repetitions, and
linear_fit() the least-squares line y = a + b x with the t interval of its
slope b (bench/netns_scale.sh: cost against the number of namespaces).
"""
import math
import random
import statistics


def _betacf(a, b, x):
    """Continued fraction of the regularised incomplete beta function."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(c) > tiny else 1 + aa / tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c if abs(c) > tiny else 1 + aa / tiny
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-12:
            break
    return h


def betainc(a, b, x):
    """I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    ln = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) +
          a * math.log(x) + b * math.log(1 - x))
    if x < (a + 1) / (a + b + 2):
        return math.exp(ln) * _betacf(a, b, x) / a
    return 1 - math.exp(ln) * _betacf(b, a, 1 - x) / b


def t_cdf(t, df):
    x = df / (df + t * t)
    tail = 0.5 * betainc(df / 2, 0.5, x)
    return 1 - tail if t > 0 else tail


def t_quantile(p, df):
    """Inverse of t_cdf by bisection (p in (0.5, 1))."""
    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def paired_ratio(a, b, level=0.95):
    """a, b: {block: value}.  Returns dict(est, lo, hi, n, half_pct) or None.

    half_pct is the half-width of the interval in per cent of the estimate
    (the larger side: the interval is not symmetric on the linear scale).
    """
    logs = [math.log(a[k] / b[k]) for k in a
            if k in b and a[k] and b[k] and a[k] > 0 and b[k] > 0]
    n = len(logs)
    if n < 2:
        return None
    m = statistics.mean(logs)
    sd = statistics.stdev(logs)
    h = t_quantile(0.5 + level / 2, n - 1) * sd / math.sqrt(n)
    est = math.exp(m)
    lo, hi = math.exp(m - h), math.exp(m + h)
    return {"est": est, "lo": lo, "hi": hi, "n": n,
            "half_pct": 100 * max(hi - est, est - lo) / est}


def mean_interval(vals, level=0.95):
    """dict(est, lo, hi, n): the mean of vals and its t interval; lo and hi
    are None with fewer than two values, None without any."""
    vals = [v for v in vals if v is not None]
    n = len(vals)
    if not n:
        return None
    m = statistics.mean(vals)
    if n < 2:
        return {"est": m, "lo": None, "hi": None, "n": n}
    h = t_quantile(0.5 + level / 2, n - 1) * statistics.stdev(vals) / math.sqrt(n)
    return {"est": m, "lo": m - h, "hi": m + h, "n": n}


def linear_fit(xs, ys, level=0.95):
    """Least squares y = a + b x over the pairs: dict(a, b, lo, hi, n, r2)
    where lo, hi is the t interval (n - 2 degrees of freedom) of the slope
    b.  None with fewer than three points or a single distinct x."""
    pts = [(x, y) for x, y in zip(xs, ys) if x is not None and y is not None]
    n = len(pts)
    if n < 3:
        return None
    mx = statistics.mean(x for x, _ in pts)
    my = statistics.mean(y for _, y in pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return None
    syy = sum((y - my) ** 2 for _, y in pts)
    b = sum((x - mx) * (y - my) for x, y in pts) / sxx
    a = my - b * mx
    sse = sum((y - a - b * x) ** 2 for x, y in pts)
    h = t_quantile(0.5 + level / 2, n - 2) * math.sqrt(sse / (n - 2) / sxx)
    return {"a": a, "b": b, "lo": b - h, "hi": b + h, "n": n,
            "r2": 1 - sse / syy if syy else 1.0}


def median_or_none(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def bootstrap(data, stat, level=0.95, reps=2000, seed=1):
    """Percentile bootstrap interval (lo, hi) of stat(data): data (a list
    of blocks) resampled with replacement reps times, seeded, so a report
    says the same on the same data.  (None, None) when stat has no value
    on any resample."""
    rng = random.Random(seed)
    vals = []
    for _ in range(reps):
        v = stat(rng.choices(data, k=len(data)))
        if v is not None:
            vals.append(v)
    if not vals:
        return None, None
    vals.sort()
    k = (1 - level) / 2
    return vals[int(k * (len(vals) - 1))], vals[int(math.ceil((1 - k) * (len(vals) - 1)))]
