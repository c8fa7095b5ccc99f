/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * RSS of the mlx5 PMD: the key, hash fields and indirection table a port's
 * steering is built from (priv->rss). Configure sets them (the user's key
 * or the default, the queues in turn); the rss_hash_update and reta_update
 * ops change them on a started port too, by rebuilding the steering beside
 * the old (mlx5_steering_rebuild()): the device spreads what it takes after
 * the return by the new rules, takes every frame meanwhile, and the queues
 * keep their WQs and mbufs. lib/port has checked every argument.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "mlx5.h"

/* The Toeplitz key of Microsoft's RSS verification suite, DPDK's default too. */
static const uint8_t default_rss_key[MLX5_RSS_HASH_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

uint32_t mlx5_rss_reta_size(const struct mlx5_dev *dev)
{
	uint32_t max = dev->attr.rss_caps.max_rwq_indirection_table_size;

	/* A power of two: verbs takes the table's size as its log. */
	if (max != 0 && max < MLX5_RSS_RETA_SIZE)
		return 1u << dvp_log2_u32(max);
	return MLX5_RSS_RETA_SIZE;
}

void mlx5_rss_configure(struct mlx5_priv *priv)
{
	const struct dvp_port_rss_conf *rc = &priv->port->conf.rss_conf;
	uint16_t nb = DVP_MAX(priv->port->nb_rx_queues, (uint16_t)1);
	struct mlx5_rss *r = &priv->rss;

	pthread_mutex_lock(&priv->steer_lock);
	memcpy(r->key, rc->rss_key != NULL ? rc->rss_key : default_rss_key, sizeof(r->key));
	r->hf = rc->rss_hf;
	r->reta_n = mlx5_rss_reta_size(priv->dev);
	for (uint32_t i = 0; i < r->reta_n; i++)
		r->reta[i] = (uint16_t)(i % nb);
	pthread_mutex_unlock(&priv->steer_lock);
}

int mlx5_rss_hash_update(struct dvp_port *port, const struct dvp_port_rss_conf *conf)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	uint8_t key[MLX5_RSS_HASH_KEY_LEN];
	uint64_t hf;
	int ret;

	pthread_mutex_lock(&priv->steer_lock);
	memcpy(key, priv->rss.key, sizeof(key));
	hf = priv->rss.hf;
	if (conf->rss_key != NULL)
		memcpy(priv->rss.key, conf->rss_key, sizeof(priv->rss.key));
	priv->rss.hf = conf->rss_hf;
	ret = mlx5_steering_rebuild(priv);
	if (ret < 0) {
		memcpy(priv->rss.key, key, sizeof(key));
		priv->rss.hf = hf;
	}
	pthread_mutex_unlock(&priv->steer_lock);
	if (ret == 0)
		MLX5_PLOG(INFO, port, "RSS: hash fields 0x%" PRIx64 "%s", conf->rss_hf,
			  conf->rss_key != NULL ? ", a new key" : "");
	return ret;
}

int mlx5_rss_hash_conf_get(struct dvp_port *port, struct dvp_port_rss_conf *conf)
{
	struct mlx5_priv *priv = mlx5_priv(port);

	pthread_mutex_lock(&priv->steer_lock);
	conf->rss_hf = priv->rss.hf;
	if (conf->rss_key != NULL)
		memcpy(conf->rss_key, priv->rss.key, sizeof(priv->rss.key));
	pthread_mutex_unlock(&priv->steer_lock);
	return 0;
}

static bool reta_entry(const struct dvp_rss_reta_entry64 *reta, uint32_t i)
{
	return (reta[i / DVP_RETA_GROUP_SIZE].mask >> (i % DVP_RETA_GROUP_SIZE)) & 1u;
}

int mlx5_rss_reta_update(struct dvp_port *port, const struct dvp_rss_reta_entry64 *reta,
			 uint16_t reta_size)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	uint16_t was[MLX5_RSS_RETA_SIZE];
	uint32_t n = DVP_MIN((uint32_t)reta_size, priv->rss.reta_n), changed = 0;
	int ret;

	pthread_mutex_lock(&priv->steer_lock);
	memcpy(was, priv->rss.reta, sizeof(was));
	for (uint32_t i = 0; i < n; i++) {
		if (!reta_entry(reta, i))
			continue;
		priv->rss.reta[i] = reta[i / DVP_RETA_GROUP_SIZE].reta[i % DVP_RETA_GROUP_SIZE];
		changed += priv->rss.reta[i] != was[i];
	}
	ret = changed != 0 ? mlx5_steering_rebuild(priv) : 0;
	if (ret < 0)
		memcpy(priv->rss.reta, was, sizeof(was));
	pthread_mutex_unlock(&priv->steer_lock);
	if (ret == 0)
		MLX5_PLOG(INFO, port, "RSS: %u of %u table entries changed", changed,
			  priv->rss.reta_n);
	return ret;
}

int mlx5_rss_reta_query(struct dvp_port *port, struct dvp_rss_reta_entry64 *reta,
			uint16_t reta_size)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	uint32_t n = DVP_MIN((uint32_t)reta_size, priv->rss.reta_n);

	pthread_mutex_lock(&priv->steer_lock);
	for (uint32_t i = 0; i < n; i++)
		if (reta_entry(reta, i))
			reta[i / DVP_RETA_GROUP_SIZE].reta[i % DVP_RETA_GROUP_SIZE] =
				priv->rss.reta[i];
	pthread_mutex_unlock(&priv->steer_lock);
	return 0;
}
