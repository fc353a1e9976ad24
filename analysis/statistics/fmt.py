"""How numbers, sizes and estimates are written in the book's prose and tables."""

from __future__ import annotations

import math

from analysis.statistics import stats as S
from decision.band import SESOI


def fmt_size(n: float | int | None) -> str:
    """A size as its sources name it: binary units for multiples of 1024 (64 KiB, 1 MiB),
    decimal units for round decimal sizes (the 100 MB file is "100 MB", not "95.4 MiB")."""
    if n is None or (isinstance(n, float) and not math.isfinite(n)):
        return "n/a"
    n = float(n)
    if n >= 1000 and n.is_integer() and int(n) % 1024:
        for unit, f in (("GB", 10 ** 9), ("MB", 10 ** 6), ("kB", 10 ** 3)):
            if n >= f and int(n) % f == 0:
                return f"{int(n) // f} {unit}"
    for unit, f in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= f:
            v = n / f
            return f"{v:.0f} {unit}" if abs(v - round(v)) < 0.05 else f"{v:.1f} {unit}"
    return f"{n:.0f} B"


def fmt_num(x: float | None, digits: int = 3) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    if x == 0:
        return "0"
    mag = math.floor(math.log10(abs(x)))
    decimals = max(0, digits - 1 - mag)
    return f"{x:,.{decimals}f}"


def fmt_ratio_ci(ratio: float | None, lo: float | None, hi: float | None, *,
                 times: bool = True, rounds: int | None = None) -> str:
    """A ratio with its confidence interval, ``1.71× [1.11, 2.64]``: the one way the book
    writes one, each number to three significant digits (:func:`fmt_num`). ``times=False``
    leaves out the ``×`` (where the sentence names the ratio, ``send/sendmsg 1.71 [1.11,
    2.64]``); ``rounds`` adds how many rounds gave it (``, 3 rounds``).

    A CI whose upper end is more than :data:`decision.rule.UNBOUNDED_FACTOR` (1000) times
    its lower end (:func:`decision.rule.unbounded`: three decades, typically from two or
    three rounds) bounds nothing; its ends are not printed as numbers ("[0.000, 4.18e+04]")
    but said for what they are: ``1.30× (CI unbounded from 2 rounds: its ends more than
    1,000× apart)`` (without ``from N rounds`` where ``rounds`` is not given)."""
    from decision.rule import unbounded, unbounded_words

    x = "×" if times else ""
    if lo is not None and hi is not None and unbounded(lo, hi):
        src = f" from {rounds} round{'s' if rounds != 1 else ''}" if rounds is not None else ""
        return f"{fmt_num(ratio)}{x} (CI unbounded{src}: {unbounded_words()})"
    txt = f"{fmt_num(ratio)}{x} [{fmt_num(lo)}, {fmt_num(hi)}]"
    if rounds is not None:
        txt += f", {rounds} round{'s' if rounds != 1 else ''}"
    return txt


def fmt_ci_ends(lo: float | None, hi: float | None, digits: int = 3) -> tuple[str, str]:
    """A CI's two ends as a table prints them ("CI low", "CI high"): three significant
    digits, "—" where there is no CI, and "unbounded" in both cells where the CI is
    (:func:`decision.rule.unbounded`) instead of "0.000" and "4.18e+04"."""
    from decision.rule import unbounded

    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return "—", "—"
    if unbounded(lo, hi):
        return "unbounded", "unbounded"
    return f"{lo:.{digits}g}", f"{hi:.{digits}g}"


def fmt_est(e: S.Estimate, unit: str = "", digits: int = 3) -> str:
    """``12.3 Gbit/s (95% CI 11.9-12.8, n=5)``: the level is the estimate's own."""
    u = f" {unit}" if unit else ""
    if not math.isfinite(e.value):
        return "n/a"
    if not (math.isfinite(e.lo) and math.isfinite(e.hi)):
        return f"{fmt_num(e.value, digits)}{u} (no CI, n={e.n})"
    return (f"{fmt_num(e.value, digits)}{u} ({fmt_level(e.confidence)} CI "
            f"{fmt_num(e.lo, digits)}–{fmt_num(e.hi, digits)}, n={e.n})")


def fmt_level(confidence: float) -> str:
    """A confidence level as the book prints it: ``95%`` (0.95), ``98.75%`` (0.9875)."""
    return f"{round(confidence * 100, 4):g}%"


def fmt_hours(hours: float) -> str:
    """A run's length as a reader says it: "45 s", "8 min", "1 h 26 min" (never "0.1 h")."""
    if not math.isfinite(hours) or hours < 0:
        return "n/a"
    seconds = int(round(hours * 3600))
    if seconds < 60:
        return f"{seconds} s"
    minutes = int(round(seconds / 60))
    h, m = divmod(minutes, 60)
    return f"{m} min" if h == 0 else f"{h} h" if m == 0 else f"{h} h {m} min"


def plural(n: int, one: str, many: str) -> str:
    """``one`` for 1 (a verb or a noun), ``many`` otherwise: "1 is", "3 are"."""
    return one if n == 1 else many


def fmt_pct(x: float | None, digits: int = 1) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{100 * x:.{digits}f} %"


def fmt_band(t: float = SESOI) -> str:
    """The band of "no difference" as the book writes it: "±12 %" (by default the one band,
    the claims' :data:`decision.band.SESOI`; a whole percent as it is derived, a decimal
    where another band needs one)."""
    return f"±{fmt_pct(t, 0 if round(t * 100, 6).is_integer() else 1)}"
