/* An outside program: built against an installed dvpmd with pkg-config only. */
#include <dvp_eal.h>
#include <dvp_log.h>

int main(void)
{
	int t = dvp_log_register("outside.app", DVP_LOG_INFO);

	dvp_log(DVP_LOG_NOTICE, (uint32_t)t, "%s: hello from outside\n", dvp_version());
	return dvp_log_apply_arg("outside.*:debug") == 0 ? 0 : 1;
}
