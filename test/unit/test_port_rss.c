/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/port's RSS calls (port_rss.c): against net_ring, which has no RSS,
 * each answers -ENOTSUP with a line, and a bad port or a NULL argument
 * -EINVAL; against a driver made here that hashes (a 40-byte key, 128
 * table entries, IPv4 fields), every argument out of its info is refused
 * with a line naming it before the driver is called, what passes reaches
 * the driver as given, on a started port too, and port->conf follows the
 * changes the driver accepted, not those it refused.
 */

#include "test_port_helpers.h"
#include "test_port_mock.h"

#include <dvp_port_driver.h>

#define MOCK_RETA 128u
#define MOCK_HF (DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP)

/* The driver made here: it keeps what the RSS ops gave it, and fails on demand. */
struct mock {
	uint8_t key[40];
	uint64_t hf;
	uint16_t reta[MOCK_RETA];
	unsigned int calls; /* RSS ops called */
	int fail; /* the next RSS op returns this */
};

static uint16_t lo, mp; /* net_ring0; the mock port */

static struct mock *mock_of(struct dvp_port *port)
{
	return port->priv;
}

static int mock_info(struct dvp_port *port, struct dvp_port_info *info)
{
	(void)port;
	info->max_rx_queues = 4;
	info->max_tx_queues = 4;
	info->rx_desc_lim = (struct dvp_desc_lim){ 1024, 1, 1 };
	info->tx_desc_lim = (struct dvp_desc_lim){ 1024, 1, 1 };
	info->rss_hf_capa = MOCK_HF;
	info->hash_key_size = 40;
	info->reta_size = MOCK_RETA;
	return 0;
}

static int mock_configure(struct dvp_port *port)
{
	struct mock *m = mock_of(port);

	for (unsigned int i = 0; i < MOCK_RETA; i++)
		m->reta[i] = (uint16_t)(i % DVP_MAX(port->nb_rx_queues, 1));
	m->hf = port->conf.rss_conf.rss_hf;
	return 0;
}

/* The op's failure when one was asked for, once. */
static int mock_call(struct mock *m)
{
	int ret = m->fail;

	m->calls++;
	m->fail = 0;
	return ret;
}

static int mock_hash_update(struct dvp_port *port, const struct dvp_port_rss_conf *conf)
{
	struct mock *m = mock_of(port);
	int ret = mock_call(m);

	if (ret < 0)
		return ret;
	if (conf->rss_key != NULL)
		memcpy(m->key, conf->rss_key, sizeof(m->key));
	m->hf = conf->rss_hf;
	return 0;
}

static int mock_conf_get(struct dvp_port *port, struct dvp_port_rss_conf *conf)
{
	struct mock *m = mock_of(port);

	m->calls++;
	conf->rss_hf = m->hf;
	if (conf->rss_key != NULL)
		memcpy(conf->rss_key, m->key, sizeof(m->key));
	return 0;
}

static int mock_reta_update(struct dvp_port *port, const struct dvp_rss_reta_entry64 *reta,
			    uint16_t size)
{
	struct mock *m = mock_of(port);
	int ret = mock_call(m);

	if (ret < 0)
		return ret;
	assert_int_equal(size, MOCK_RETA);
	for (unsigned int i = 0; i < size; i++)
		if (reta[i / 64].mask & (1ull << (i % 64)))
			m->reta[i] = reta[i / 64].reta[i % 64];
	return 0;
}

static int mock_reta_query(struct dvp_port *port, struct dvp_rss_reta_entry64 *reta, uint16_t size)
{
	struct mock *m = mock_of(port);

	m->calls++;
	for (unsigned int i = 0; i < size; i++)
		if (reta[i / 64].mask & (1ull << (i % 64)))
			reta[i / 64].reta[i % 64] = m->reta[i];
	return 0;
}

static const struct dvp_port_ops mock_ops = {
	.info_get = mock_info,
	.configure = mock_configure,
	TP_MOCK_INERT_OPS,
	.rss_hash_update = mock_hash_update,
	.rss_hash_conf_get = mock_conf_get,
	.reta_update = mock_reta_update,
	.reta_query = mock_reta_query,
};

static int setup(void **state)
{
	struct dvp_port *port;

	(void)state;
	if (dvp_test_eal_init("--no-huge", "-m", "32", "-l", "0", "--vdev", "net_ring0,queues=2") <
	    0)
		return -1;
	tp_pool_create();
	lo = tp_port("net_ring0");
	port = dvp_port_allocate("rss_mock0", "rss_mock", &mock_ops, NULL, sizeof(struct mock));
	if (port == NULL || dvp_port_probing_finish(port) < 0)
		return -1;
	mp = port->port_id;
	return 0;
}

static struct mock *mock_state(void)
{
	return mock_of(dvp_port_get(mp));
}

/* The mock port configured with @p nq queues each way, started when @p start. */
static void mock_up(uint16_t nq, bool start)
{
	struct dvp_port_conf conf = { 0 };

	conf.rss_conf.rss_hf = DVP_RSS_IPV4;
	tp_port_setup(mp, nq, &conf);
	if (start)
		assert_int_equal(dvp_port_start(mp), 0);
	mock_state()->calls = 0;
}

static void test_driver_without_rss(void **state)
{
	struct dvp_rss_reta_entry64 reta[2] = { { .mask = 1 } };
	struct dvp_port_rss_conf conf = { .rss_hf = DVP_RSS_IPV4 };
	struct dvp_log_capture cap;

	(void)state;
	tp_port_up(lo, 2, NULL);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_rss_hash_update(lo, &conf), -ENOTSUP);
	assert_int_equal(dvp_errno, ENOTSUP);
	assert_int_equal(dvp_port_rss_hash_conf_get(lo, &conf), -ENOTSUP);
	assert_int_equal(dvp_port_rss_reta_update(lo, reta, 128), -ENOTSUP);
	assert_int_equal(dvp_port_rss_reta_query(lo, reta, 128), -ENOTSUP);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "RSS hash update: net_ring has no RSS");
	assert_contains(cap.buf, "RSS hash conf get: net_ring has no RSS");
	assert_contains(cap.buf, "RSS reta update: net_ring has no RSS");
	assert_contains(cap.buf, "RSS reta query: net_ring has no RSS");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_port_stop(lo), 0);
}

static void test_bad_port_and_null_arguments(void **state)
{
	struct dvp_rss_reta_entry64 reta[2] = { { .mask = 1 } };
	struct dvp_port_rss_conf conf = { 0 };
	struct dvp_log_capture cap;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_rss_hash_update(DVP_MAX_PORTS, &conf), -EINVAL);
	assert_int_equal(dvp_port_rss_hash_conf_get(DVP_MAX_PORTS, &conf), -EINVAL);
	assert_int_equal(dvp_port_rss_reta_update(DVP_MAX_PORTS, reta, 128), -EINVAL);
	assert_int_equal(dvp_port_rss_reta_query(DVP_MAX_PORTS, reta, 128), -EINVAL);
	assert_int_equal(dvp_port_rss_hash_update(lo, NULL), -EINVAL);
	assert_int_equal(dvp_port_rss_hash_conf_get(lo, NULL), -EINVAL);
	assert_int_equal(dvp_port_rss_reta_update(lo, NULL, 128), -EINVAL);
	assert_int_equal(dvp_port_rss_reta_query(lo, NULL, 128), -EINVAL);
	assert_int_equal(dvp_errno, EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "RSS hash update: port " DVP_STR(DVP_MAX_PORTS) " does not exist");
	assert_contains(cap.buf, "RSS reta query: port " DVP_STR(DVP_MAX_PORTS) " does not exist");
	assert_contains(cap.buf, "RSS hash update: port 0: no RSS conf given");
	assert_contains(cap.buf, "RSS hash conf get: port 0: nowhere to put the RSS conf");
	assert_contains(cap.buf, "RSS reta update: port 0: no table given");
	assert_contains(cap.buf, "RSS reta query: port 0: nowhere to put the table");
	dvp_log_capture_free(&cap);
}

static void test_hash_update_checked_against_info(void **state)
{
	struct dvp_rss_reta_entry64 reta = { .mask = 1 };
	uint8_t key[40], short_key[39];
	struct dvp_port_rss_conf conf = { .rss_hf = DVP_RSS_IPV4 };
	struct dvp_log_capture cap;
	struct dvp_port *port = dvp_port_get(mp);

	(void)state;
	memset(key, 0xa5, sizeof(key));
	memset(short_key, 0x5a, sizeof(short_key));
	/* Never configured: the driver's state is made by configure. */
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_rss_hash_update(mp, &conf), -EINVAL);
	assert_int_equal(dvp_port_rss_reta_update(mp, &reta, MOCK_RETA), -EINVAL);
	mock_up(2, false);
	conf.rss_hf = DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_TCP;
	assert_int_equal(dvp_port_rss_hash_update(mp, &conf), -EINVAL);
	conf.rss_hf = DVP_RSS_IPV4;
	conf.rss_key = short_key;
	conf.rss_key_len = sizeof(short_key);
	assert_int_equal(dvp_port_rss_hash_update(mp, &conf), -EINVAL);
	/* The driver refuses: its error, and port->conf as it was. */
	conf.rss_key = key;
	conf.rss_key_len = sizeof(key);
	mock_state()->fail = -ENOMEM;
	assert_int_equal(dvp_port_rss_hash_update(mp, &conf), -ENOMEM);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "RSS hash update: the port is not configured");
	assert_contains(cap.buf, "RSS reta update: the port is not configured");
	assert_contains(cap.buf, "RSS hash update: hash fields 0x10 not supported; rss_mock "
				 "hashes on 0x24");
	assert_contains(cap.buf, "RSS hash update: a key of 39 bytes; rss_mock takes 40");
	assert_contains(cap.buf, "RSS hash update: rss_mock failed: ");
	dvp_log_capture_free(&cap);
	assert_int_equal(mock_state()->calls, 1);
	assert_null(port->conf.rss_conf.rss_key);
	assert_int_equal(port->conf.rss_conf.rss_hf, DVP_RSS_IPV4);

	/* Accepted on a started port: the driver has it, port->conf follows (a copy of the key). */
	assert_int_equal(dvp_port_start(mp), 0);
	conf.rss_hf = MOCK_HF;
	assert_int_equal(dvp_port_rss_hash_update(mp, &conf), 0);
	assert_int_equal(mock_state()->calls, 2);
	assert_memory_equal(mock_state()->key, key, sizeof(key));
	assert_int_equal(mock_state()->hf, MOCK_HF);
	assert_int_equal(port->conf.rss_conf.rss_hf, MOCK_HF);
	assert_ptr_equal(port->conf.rss_conf.rss_key, port->rss_key);
	assert_int_equal(port->conf.rss_conf.rss_key_len, 40);
	memset(key, 0, sizeof(key));
	assert_memory_equal(port->rss_key, mock_state()->key, 40);
	/* No key: the fields change, the key stays. */
	conf.rss_key = NULL;
	conf.rss_key_len = 0;
	conf.rss_hf = 0;
	assert_int_equal(dvp_port_rss_hash_update(mp, &conf), 0);
	assert_int_equal(port->conf.rss_conf.rss_hf, 0);
	assert_ptr_equal(port->conf.rss_conf.rss_key, port->rss_key);
	assert_memory_equal(port->rss_key, mock_state()->key, 40);
	assert_int_equal(dvp_port_stop(mp), 0);
}

static void test_hash_conf_get_with_the_key(void **state)
{
	uint8_t key[40], small[16];
	struct dvp_port_rss_conf conf = { 0 };
	struct dvp_log_capture cap;

	(void)state;
	mock_up(2, true);
	memset(mock_state()->key, 0x3c, sizeof(mock_state()->key));
	conf.rss_key = small;
	conf.rss_key_len = sizeof(small);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_rss_hash_conf_get(mp, &conf), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf,
			"RSS hash conf get: room for a key of 16 bytes; rss_mock's has 40");
	dvp_log_capture_free(&cap);
	assert_int_equal(mock_state()->calls, 0);
	/* Fields only, then with the key: its length comes back either way. */
	conf.rss_key = NULL;
	conf.rss_key_len = 0;
	assert_int_equal(dvp_port_rss_hash_conf_get(mp, &conf), 0);
	assert_int_equal(conf.rss_hf, DVP_RSS_IPV4);
	assert_int_equal(conf.rss_key_len, 40);
	memset(key, 0, sizeof(key));
	conf.rss_key = key;
	assert_int_equal(dvp_port_rss_hash_conf_get(mp, &conf), 0);
	assert_memory_equal(key, mock_state()->key, sizeof(key));
	assert_int_equal(dvp_port_stop(mp), 0);
}

static void test_reta_checked_against_info(void **state)
{
	struct dvp_rss_reta_entry64 reta[MOCK_RETA / 64];
	struct dvp_log_capture cap;

	(void)state;
	memset(reta, 0, sizeof(reta));
	reta[0].mask = 1;
	mock_up(3, true);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_rss_reta_update(mp, reta, 64), -EINVAL);
	assert_int_equal(dvp_port_rss_reta_query(mp, reta, 512), -EINVAL);
	reta[0].mask = 0;
	assert_int_equal(dvp_port_rss_reta_update(mp, reta, MOCK_RETA), -EINVAL);
	assert_int_equal(dvp_port_rss_reta_query(mp, reta, MOCK_RETA), -EINVAL);
	/* Entry 70 to queue 3 of 3. */
	reta[1].mask = 1ull << 6;
	reta[1].reta[6] = 3;
	assert_int_equal(dvp_port_rss_reta_update(mp, reta, MOCK_RETA), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "RSS reta update: a table of 64 entries; rss_mock's has 128");
	assert_contains(cap.buf, "RSS reta query: a table of 512 entries; rss_mock's has 128");
	assert_contains(cap.buf, "RSS reta update: no mask bit set among the 128 entries: nothing "
				 "to write");
	assert_contains(cap.buf, "RSS reta query: no mask bit set among the 128 entries: nothing "
				 "to read");
	assert_contains(cap.buf,
			"RSS reta update: entry 70 -> rx queue 3; the port has 3 (0 to 2)");
	dvp_log_capture_free(&cap);
	assert_int_equal(mock_state()->calls, 0);

	/* Entries 0, 70 and 127 on the started port; the others keep the queues in turn. */
	reta[0].mask = 1;
	reta[0].reta[0] = 2;
	reta[1].reta[6] = 1;
	reta[1].mask |= 1ull << 63;
	reta[1].reta[63] = 0;
	assert_int_equal(dvp_port_rss_reta_update(mp, reta, MOCK_RETA), 0);
	memset(reta, 0, sizeof(reta));
	reta[0].mask = reta[1].mask = UINT64_MAX;
	assert_int_equal(dvp_port_rss_reta_query(mp, reta, MOCK_RETA), 0);
	for (unsigned int i = 0; i < MOCK_RETA; i++) {
		uint16_t want = i == 0 ? 2 : i == 70 ? 1 : i == 127 ? 0 : (uint16_t)(i % 3);

		assert_int_equal(reta[i / 64].reta[i % 64], want);
	}
	/* The driver's failure comes back with a line. */
	mock_state()->fail = -EIO;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_rss_reta_update(mp, reta, MOCK_RETA), -EIO);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "RSS reta update: rss_mock failed: ");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_port_stop(mp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_without_rss),
		cmocka_unit_test(test_bad_port_and_null_arguments),
		cmocka_unit_test(test_hash_update_checked_against_info),
		cmocka_unit_test(test_hash_conf_get_with_the_key),
		cmocka_unit_test(test_reta_checked_against_info),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
