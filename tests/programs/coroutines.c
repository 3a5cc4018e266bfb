/* Generators built on setjmp/longjmp, in the style of Lua's C API: a
 * generator is a C function that keeps its state in a struct; "yield"
 * records a value and longjmps back to the resumer, discarding the
 * generator's C frames; the next resume calls the generator function again,
 * which continues from its saved state. Two generators, one nested in the
 * other (the outer one resumes the inner one twice per value it yields),
 * 40 values consumed: 120 jumps, each followed by more calls.
 * Checks: exact counts and the call tree, with unwound markers.
 */
#include <setjmp.h>
#define FUNCS(X)                                                                                   \
	X(main, "main") X(resume, "resume") X(yield, "yield") X(count_step, "count_step")            \
	X(pairs_step, "pairs_step") X(consume, "consume") X(check, "check") X(square, "square")
#include "truth.h"

struct gen {
	jmp_buf resumer; /* where yield returns to */
	void (*step)(struct gen *);
	int state;
	int value;
	struct gen *inner;
};

NOINL void yield(struct gen *g, int v)
{
	HIT(yield);
	g->value = v;
	longjmp(g->resumer, 1);
}

NOINL int resume(struct gen *g)
{
	HIT(resume);
	if (setjmp(g->resumer) == 0) {
		g->step(g); /* runs until the generator yields */
		return -1;  /* finished without yielding: not in this program */
	}
	return g->value;
}

NOINL int square(int x)
{
	HIT(square);
	return x * x;
}

/* Inner generator: 0, 1, 4, 9, ... */
NOINL void count_step(struct gen *g)
{
	HIT(count_step);
	int n = g->state++;
	yield(g, square(n));
}

/* Outer generator: resumes the inner one twice, yields the sum. */
NOINL void pairs_step(struct gen *g)
{
	HIT(pairs_step);
	int a = resume(g->inner);
	int b = resume(g->inner);
	g->state++;
	yield(g, a + b);
}

static long total;

NOINL void consume(int v)
{
	HIT(consume);
	total += v;
}

NOINL int check(int i, int v)
{
	HIT(check);
	/* value i of the outer generator: (2i)^2 + (2i+1)^2 */
	return v == 4 * i * i + (2 * i + 1) * (2 * i + 1);
}

int main(void)
{
	HIT(main);
	struct gen inner = {.step = count_step};
	struct gen outer = {.step = pairs_step, .inner = &inner};
	int ok = 1;
	for (int i = 0; i < 40; i++) {
		int v = resume(&outer);
		consume(v);
		ok &= check(i, v);
	}
	printf("coroutines: total %ld\n", total);
	return ok && inner.state == 80 && outer.state == 40 ? 0 : 1;
}
