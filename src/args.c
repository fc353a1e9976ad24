/* Parsing of sizes, durations, counts and CPU lists. Bad values are usage errors (exit 2)
 * whose message names the argument, the value and what is allowed. Numbers are decimal
 * only: strtol/strtoull/strtod also take leading spaces and '+', base 0 reads "010" as octal
 * 8 and "0x10" as hex, and strtod reads hex floats ("0x1p-3" = 0.125) and "inf"/"nan";
 * each value is checked against the decimal form first, so none of these is accepted. */
#include "args.h"

#include <ctype.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>

/* Whether s is one or more decimal digits and nothing else. */
static int decimal_digits(const char *s)
{
	if (!s || !*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* Whether s is a decimal number of seconds: digits with at most one '.', at least one digit,
 * and an optional decimal exponent (1, 0.5, .25, 2.5e-1); no sign, space, hex or letters. */
static int decimal_seconds(const char *s)
{
	int digits = 0, dot = 0;

	if (!s)
		return 0;
	for (; *s && *s != 'e' && *s != 'E'; s++) {
		if (isdigit((unsigned char)*s))
			digits++;
		else if (*s == '.' && !dot)
			dot = 1;
		else
			return 0;
	}
	if (!digits)
		return 0;
	if (!*s)
		return 1;
	s++; /* the exponent: an optional sign, then digits */
	if (*s == '+' || *s == '-')
		s++;
	return decimal_digits(s);
}

uint64_t parse_size(const char *arg, const char *val, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long n;
	uint64_t mult = 1;

	errno = 0;
	if (!val || !isdigit((unsigned char)val[0]))
		goto bad;
	n = strtoull(val, &end, 10);
	if (errno)
		goto bad;
	if (*end) {
		switch (toupper((unsigned char)*end)) {
		case 'K': mult = 1ull << 10; break;
		case 'M': mult = 1ull << 20; break;
		case 'G': mult = 1ull << 30; break;
		default: goto bad;
		}
		end++;
		if (*end == 'i' || *end == 'I')
			end++;
		if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			goto bad;
	}
	if (n > UINT64_MAX / mult)
		goto range;
	n *= mult;
	if (n < min || n > max)
		goto range;
	return n;
bad:
	die_usage("%s: '%s' is not a size (allowed: %llu to %llu bytes, e.g. 64, 4K, 1M, 1G)",
		  arg, val ? val : "", (unsigned long long)min, (unsigned long long)max);
range:
	die_usage("%s: %s is out of range (allowed: %llu to %llu bytes)", arg, val,
		  (unsigned long long)min, (unsigned long long)max);
}

double parse_seconds(const char *arg, const char *val, double min, double max)
{
	char *end;
	double d;

	errno = 0;
	d = decimal_seconds(val) ? strtod(val, &end) : NAN;
	if (!val || !decimal_seconds(val) || errno || end == val || *end || !isfinite(d))
		die_usage("%s: '%s' is not a number of seconds (allowed: %g to %g)", arg,
			  val ? val : "", min, max);
	if (d < min || d > max)
		die_usage("%s: %s is out of range (allowed: %g to %g seconds)", arg, val, min, max);
	return d;
}

long parse_long(const char *arg, const char *val, long min, long max)
{
	char *end;
	long n;

	/* an optional '-' and decimal digits: strtol would also skip spaces and take '+' */
	int decimal = val && decimal_digits(val[0] == '-' ? val + 1 : val);

	errno = 0;
	n = decimal ? strtol(val, &end, 10) : 0;
	if (!decimal || errno || end == val || *end)
		die_usage("%s: '%s' is not an integer (allowed: %ld to %ld)", arg, val ? val : "",
			  min, max);
	if (n < min || n > max)
		die_usage("%s: %ld is out of range (allowed: %ld to %ld)", arg, n, min, max);
	return n;
}

uint64_t parse_u64(const char *arg, const char *val)
{
	char *end;
	unsigned long long n;

	/* base 10, digits only: base 0 read "010" as octal 8 and "0x10" as 16, and strtoull
	 * takes "-1" as 2^64 - 1 */
	errno = 0;
	n = decimal_digits(val) ? strtoull(val, &end, 10) : 0;
	if (!decimal_digits(val) || errno || end == val || *end)
		die_usage("%s: '%s' is not an unsigned 64-bit integer", arg, val ? val : "");
	return n;
}

void parse_cpulist(const char *arg, const char *val, struct cpulist *out)
{
	cpu_set_t allowed;
	const char *p = val;
	char *end;
	long a, b;

	out->n = 0;
	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		CPU_ZERO(&allowed);
	if (!val || !*val)
		goto bad;
	while (*p) {
		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtol(p, &end, 10);
		b = a;
		if (*end == '-') {
			p = end + 1;
			if (!isdigit((unsigned char)*p))
				goto bad;
			b = strtol(p, &end, 10);
		}
		if (b < a || b >= CPU_SETSIZE)
			goto bad;
		for (long c = a; c <= b; c++) {
			if (!CPU_ISSET(c, &allowed))
				die_usage("%s: CPU %ld is not available to this process (allowed: %d CPUs, see nproc)",
					  arg, c, CPU_COUNT(&allowed));
			if (out->n == MAX_CPUS)
				goto bad;
			out->cpu[out->n++] = (int)c;
		}
		if (*end == ',') {
			end++;
			if (!*end) /* "0,": a trailing separator names no CPU */
				goto bad;
		} else if (*end) {
			goto bad;
		}
		p = end;
	}
	return;
bad:
	die_usage("%s: '%s' is not a CPU list (e.g. 0, 0,1 or 0-1)", arg, val ? val : "");
}

int parse_choice(const char *arg, const char *val, const char *const *choices)
{
	char allowed[512] = "";
	size_t len = 0;

	for (int i = 0; choices[i]; i++) {
		if (val && !strcmp(val, choices[i]))
			return i;
		len += (size_t)snprintf(allowed + len, sizeof(allowed) - len, "%s%s", i ? ", " : "",
					choices[i]);
		if (len >= sizeof(allowed))
			break;
	}
	die_usage("%s: unknown value '%s' (allowed: %s)", arg, val ? val : "", allowed);
}
