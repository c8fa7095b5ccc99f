/*
 * An outside program, built against an installed dvpmd with pkg-config
 * only (or as a meson subproject). It must find drivers, so that a static
 * link proves they were kept: the simulated HCA's two ports cabled to each
 * other, a few frames sent on one and received on the other.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <dvp_eal.h>
#include <dvp_log.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>
#include <dvp_port_fp.h>

#define FRAMES 8

static int port_up(uint16_t port, struct dvp_mempool *mp)
{
	if (dvp_port_configure(port, 1, 1, NULL) != 0 ||
	    dvp_rxq_setup(port, 0, 0, DVP_SOCKET_ANY, NULL, mp) != 0 ||
	    dvp_txq_setup(port, 0, 0, DVP_SOCKET_ANY, NULL) != 0 || dvp_port_start(port) != 0)
		return -1;
	return 0;
}

static int run(void)
{
	struct dvp_mbuf *tx[FRAMES], *rx[FRAMES];
	struct dvp_mempool *mp;
	unsigned int i, sent = 0, got = 0, tries;
	char *d;

	if (dvp_port_count() < 2) {
		fprintf(stderr, "outside: %u ports, expected the sim's 2\n", dvp_port_count());
		return 1;
	}
	mp = dvp_pktmbuf_pool_create("outside", 4096, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
				     DVP_SOCKET_ANY);
	if (mp == NULL || port_up(0, mp) != 0 || port_up(1, mp) != 0) {
		fprintf(stderr, "outside: port setup failed\n");
		return 1;
	}
	for (i = 0; i < FRAMES; i++) {
		tx[i] = dvp_pktmbuf_alloc(mp);
		if (tx[i] == NULL || (d = dvp_pktmbuf_append(tx[i], 64)) == NULL)
			return 1;
		memset(d, 0, 64);
		memset(d, 0xff, 6); /* broadcast */
		d[12] = 0x08; /* IPv4 EtherType: an ordinary frame */
	}
	/* Slow is fine: the machine may be loaded, so poll long rather than fail. */
	for (tries = 0; tries < 100000 && got < FRAMES; tries++) {
		if (sent < FRAMES)
			sent += dvp_tx_burst(0, 0, tx + sent, (uint16_t)(FRAMES - sent));
		i = dvp_rx_burst(1, 0, rx, FRAMES);
		got += i;
		while (i > 0)
			dvp_pktmbuf_free(rx[--i]);
		if (got < FRAMES)
			usleep(100);
	}
	dvp_port_stop(0);
	dvp_port_stop(1);
	dvp_port_close(0);
	dvp_port_close(1);
	printf("outside: sent %u, received %u frames through the sim\n", sent, got);
	return got == FRAMES ? 0 : 1;
}

int main(int argc, char **argv)
{
	int t = dvp_log_register("outside.app", DVP_LOG_INFO);
	int ret;

	if (dvp_eal_init(argc, argv) < 0)
		return 1;
	dvp_log(DVP_LOG_NOTICE, (uint32_t)t, "%s: hello from outside\n", dvp_version());
	ret = run();
	dvp_eal_cleanup();
	return ret;
}
