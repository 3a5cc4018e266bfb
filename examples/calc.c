/*
 * The calltrace demo: a tiny recursive-descent calculator. Errors are reported
 * with longjmp, so the trace shows frames abandoned by a jump as "unwound".
 *
 *   ./calc "1+2*(3-4)" "2*(3+"
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdio.h>

static const char *pos;
static jmp_buf on_error;

static double parse_expr(void);

static void skip_spaces(void)
{
	while (isspace((unsigned char)*pos))
		pos++;
}

static void fail(const char *what)
{
	fprintf(stderr, "error: %s at '%s'\n", what, pos);
	longjmp(on_error, 1);
}

static double parse_number(void)
{
	double v = 0;
	if (!isdigit((unsigned char)*pos))
		fail("number expected");
	while (isdigit((unsigned char)*pos))
		v = v * 10 + (*pos++ - '0');
	return v;
}

static double parse_factor(void)
{
	skip_spaces();
	if (*pos == '(') {
		pos++;
		double v = parse_expr();
		skip_spaces();
		if (*pos++ != ')')
			fail("')' expected");
		return v;
	}
	return parse_number();
}

static double parse_term(void)
{
	double v = parse_factor();
	for (skip_spaces(); *pos == '*' || *pos == '/'; skip_spaces()) {
		char op = *pos++;
		double r = parse_factor();
		v = op == '*' ? v * r : v / r;
	}
	return v;
}

static double parse_expr(void)
{
	double v = parse_term();
	for (skip_spaces(); *pos == '+' || *pos == '-'; skip_spaces()) {
		char op = *pos++;
		double r = parse_term();
		v = op == '+' ? v + r : v - r;
	}
	return v;
}

static int evaluate(const char *text)
{
	pos = text;
	if (setjmp(on_error))
		return 1;
	printf("%s = %g\n", text, parse_expr());
	return 0;
}

int main(int argc, char **argv)
{
	int errors = 0;
	for (int i = 1; i < argc; i++)
		errors += evaluate(argv[i]);
	return errors;
}
