/* SPDX-License-Identifier: MIT */
/* Demangled names and the short form shown in trees. */
#include <stdlib.h>

#include "unit.h"
#include "../../src/symbols/symbols.h"
#include "../../src/common/names.h"

static void short_is(const char *mangled, const char *want)
{
	char *d = ct_demangle(mangled);
	char *s = ct_short_name(d ? d : mangled);
	if (strcmp(s, want)) {
		fprintf(stderr, "  %s -> %s, want %s\n", mangled, s, want);
		ct_unit_failed = 1;
	}
	free(s);
	free(d);
}

static void test_short_names(void)
{
	short_is("main", "main");
	short_is("_Z3fibi", "fib");
	short_is("_ZNK2ns6Circle4areaEv", "ns::Circle::area");
	short_is("_Z6max_ofIiET_S0_S0_", "max_of<int>");
	short_is("_ZN4Vec2plERKS_", "Vec2::operator+");
	short_is("_ZN3VecIiE4pushERKi", "Vec<int>::push");
	short_is("_ZN2ns6CircleC2Ed", "ns::Circle::Circle");
	short_is("_ZN2ns6CircleD0Ev", "ns::Circle::~Circle");
	short_is("_ZlsRSoRK4Vec2", "operator<<");
	short_is("_ZN1AcviEv", "A::operator int");
	short_is("_ZN1AclEi", "A::operator()");
	short_is("_ZN1AltERKS_", "A::operator<");
	short_is("_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()");
	short_is("_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo");
	short_is("_ZNKSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE5c_strEv",
		 "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> "
		 ">::c_str");
	short_is("_ZN1A3getILi3EEEiv", "A::get<3>");
	/* an operator with template arguments, and the one that needs a space before them */
	short_is("_ZN9__gnu_cxxneIPKiSt6vectorIiSaIiEEEEbRKNS_17__normal_iteratorIT_T0_EESB_",
		 "__gnu_cxx::operator!=<int const*, std::vector<int, std::allocator<int> > >");
	short_is("_ZltIiEbRK1BIT_ES4_", "operator< <int>");
	short_is("_ZN1AplIiEEvT_", "A::operator+<int>");
}

/* A compiler's copies of a function: the demangler's notes, and the raw suffixes. */
static void test_clones(void)
{
	short_is("_ZN2ns1fERKNS_1SEi.constprop.0", "ns::f");
	short_is("_ZN2ns1fERKNS_1SEi.isra.0.constprop.1", "ns::f");
	short_is("_ZN2ns1fEi.part.0.cold", "ns::f");
	CHECK(ct_clone_base_len("foo.part.0") == 3);
	CHECK(ct_clone_base_len("foo.cold") == 3);
	CHECK(ct_clone_base_len("foo.cold.12") == 3);
	CHECK(ct_clone_base_len("foo.constprop.0.isra.0") == 3);
	CHECK(ct_clone_base_len("foo.lto_priv.0") == 3);
	CHECK(ct_clone_base_len("foo.localalias") == 3);
	CHECK(ct_clone_base_len("foo.llvm.123456789") == 3);
	CHECK(ct_clone_base_len("_Z1fi.isra.0") == 5);
	/* not copies: an outlined region, a number alone, a word after the number, none */
	CHECK(ct_clone_base_len("main._omp_fn.0") == 14);
	CHECK(ct_clone_base_len("foo.0") == 5);
	CHECK(ct_clone_base_len("foo.part.0x") == 11);
	CHECK(ct_clone_base_len("foo.partial") == 11);
	CHECK(ct_clone_base_len(".cold") == 5);
	CHECK(ct_clone_base_len("foo") == 3);
}

static void test_not_mangled(void)
{
	CHECK(ct_demangle("printf") == NULL);
	CHECK(ct_demangle("_Zgarbage") == NULL);
}

int main(void)
{
	int failures = 0;
	RUN(test_short_names);
	RUN(test_clones);
	RUN(test_not_mangled);
	return failures != 0;
}
