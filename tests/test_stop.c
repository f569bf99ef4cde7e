/*
 * Description: lat_stop: nothing is requested until a caught SIGINT or
 * SIGTERM arrives; then every callback shape says stop, and the signal
 * is the one that came.
 */
#include <signal.h>

#include "latlab/stop.h"
#include "t_test.h"

int main(void)
{
	T_EQ_I64(lat_stop_signal(), 0);
	T_CHECK(!lat_stop_requested(NULL));
	T_CHECK(!lat_stop_pipe(NULL, 10, 1.0));
	T_CHECK(!lat_stop_sweep(NULL, 1, 2));
	lat_stop_catch_signals();
	/* caught, not fatal: the process carries on */
	T_EQ_I64(raise(SIGTERM), 0);
	T_EQ_I64(lat_stop_signal(), SIGTERM);
	T_CHECK(lat_stop_requested(NULL));
	T_CHECK(lat_stop_pipe(NULL, 10, 1.0));
	T_CHECK(lat_stop_sweep(NULL, 1, 2));
	T_EQ_I64(raise(SIGINT), 0);
	T_EQ_I64(lat_stop_signal(), SIGINT);
	T_DONE();
}
