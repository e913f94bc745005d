/* test-cpace.c: placeholder until the module's tests land. */
#include "tap.h"

int
main(void)
{
	tap_skip_all("cpace tests not written yet");
}
