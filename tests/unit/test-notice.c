/* test-notice.c: placeholder until the module's tests land. */
#include "tap.h"

int
main(void)
{
	tap_skip_all("notice tests not written yet");
}
