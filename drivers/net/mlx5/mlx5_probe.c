/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's driver and device: it claims ib bus devices that libmlx5
 * supports (mlx5dv_is_supported()) and the simulated HCA's, opens each
 * through the glue table, allocates the PD, checks what a real deployment
 * needs (CAP_NET_RAW, the memlock limit), and creates one port per
 * Ethernet IB port. The device is freed when its last port closes.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <dvp_errno.h>
#include <dvp_malloc.h>

#include "mlx5.h"

DVP_LOG_REGISTER(mlx5_logtype, "pmd.net.mlx5", NOTICE)

/* Below this memlock limit (without CAP_IPC_LOCK) registering a mempool fails. */
#define MLX5_MEMLOCK_MIN (64ull << 20)
#define CAP_BIT_NET_RAW 13
#define CAP_BIT_IPC_LOCK 14

/* The effective capability set of this process (/proc/self/status CapEff). */
static bool cap_effective(uint64_t *caps)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	bool found = false;

	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL)
		found = sscanf(line, "CapEff: %" SCNx64, caps) == 1;
	fclose(f);
	return found;
}

int mlx5_check_prerequisites(const char *devname)
{
	struct rlimit rl;
	uint64_t caps = 0;

	if (!cap_effective(&caps)) {
		MLX5_LOG(WARNING, "%s: cannot read /proc/self/status: capabilities not checked",
			 devname);
		return 0;
	}
	if (!(caps & (1ull << CAP_BIT_NET_RAW))) {
		MLX5_LOG(ERR,
			 "%s: raw packet queues need CAP_NET_RAW, which this process lacks: run "
			 "it as root, or grant it (setcap cap_net_raw,cap_ipc_lock+ep <program>; "
			 "AmbientCapabilities=CAP_NET_RAW CAP_IPC_LOCK in a systemd unit)",
			 devname);
		return dvp_err(EPERM);
	}
	if (caps & (1ull << CAP_BIT_IPC_LOCK))
		return 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < MLX5_MEMLOCK_MIN) {
		MLX5_LOG(
			ERR,
			"%s: the memlock limit is %" PRIu64 " KiB; memory registered with the "
			"HCA is pinned and counts against it, and mbuf pools need more: raise it "
			"(ulimit -l unlimited; LimitMEMLOCK=infinity in a systemd unit; memlock "
			"in /etc/security/limits.conf) to at least %llu MiB, or grant CAP_IPC_LOCK",
			devname, (uint64_t)rl.rlim_cur / 1024, MLX5_MEMLOCK_MIN >> 20);
		return dvp_err(ENOMEM);
	}
	return 0;
}

/*
 * Queue rings and doorbell records in EAL memory on the node of the queue
 * being created (mlx5dv_set_context_attr), as DPDK places them.
 */
static void *queue_mem_alloc(size_t size, void *data)
{
	const struct mlx5_dev *mdev = data;

	return dvp_zmalloc_socket("mlx5_queue_mem", size, 4096, mdev->alloc_socket);
}

static void queue_mem_free(void *ptr, void *data)
{
	(void)data;
	dvp_free(ptr);
}

/* The glue of @p dev: a registered software HCA's table, else libibverbs'. */
static const struct mlx5_glue *dev_glue(const struct dvp_device *dev)
{
	if (dev->ib->sw_ops != NULL)
		return mlx5_glue_lookup(dev->ib->sw_ops);
	if (dev->ib->ibv_dev != NULL)
		return &mlx5_glue_verbs;
	return NULL;
}

static int mlx5_match(const struct dvp_device *dev)
{
	const struct mlx5_glue *glue;

	if (dvp_ib_device_of(dev) == NULL)
		return 0;
	glue = dev_glue(dev);
	if (glue == NULL)
		return 0;
	if (dev->ib->ibv_dev != NULL)
		return glue->dv_is_supported(dev->ib->ibv_dev) ? 100 : 0;
	/* A software mlx5 device: its own table answers for it. */
	return 100;
}

/*
 * A context on @p ibdev: for DevX where the kernel and the device allow it
 * (mlx5_caps.c asks the device what it requires through it), else a plain
 * one, as DPDK opens its devices.
 */
static struct ibv_context *ctx_open(struct mlx5_dev *mdev, struct ibv_device *ibdev)
{
	struct mlx5dv_context_attr a = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_context *ctx;

	errno = 0;
	ctx = mdev->glue->dv_open_device(ibdev, &a);
	mdev->devx = ctx != NULL;
	if (ctx != NULL)
		return ctx;
	MLX5_LOG(INFO, "%s: no DevX context (%s): a plain one", mdev->name,
		 dvp_strerror(errno != 0 ? errno : EOPNOTSUPP));
	return mdev->glue->open_device(ibdev);
}

static struct ibv_context *dev_open(struct mlx5_dev *mdev, const struct dvp_device *dev)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n = 0;

	if (dev->ib->ibv_dev != NULL)
		return ctx_open(mdev, dev->ib->ibv_dev);
	list = mdev->glue->get_device_list(&n);
	if (list == NULL)
		return NULL;
	for (int i = 0; i < n && ctx == NULL; i++)
		if (strcmp(mdev->glue->get_device_name(list[i]), dev->ib->name) == 0)
			ctx = ctx_open(mdev, list[i]);
	mdev->glue->free_device_list(list);
	if (ctx == NULL && errno == 0)
		errno = ENODEV;
	return ctx;
}

static void dev_free(struct mlx5_dev *mdev)
{
	int ret;

	mlx5_async_destroy(mdev);
	mlx5_mr_dev_detach(mdev);
	if (mdev->pd != NULL) {
		ret = mdev->glue->dealloc_pd(mdev->pd);
		if (ret != 0)
			MLX5_LOG(WARNING, "%s: dealloc_pd: %s", mdev->name, dvp_strerror(ret));
	}
	if (mdev->ctx != NULL) {
		ret = mdev->glue->close_device(mdev->ctx);
		if (ret != 0)
			MLX5_LOG(WARNING, "%s: close_device: %s", mdev->name, dvp_strerror(ret));
	}
	if (mdev->bus_dev != NULL)
		mdev->bus_dev->driver_data = NULL;
	free(mdev);
}

void mlx5_dev_port_closed(struct mlx5_dev *mdev, struct dvp_port *port)
{
	for (unsigned int i = 0; i < DVP_IB_MAX_PORTS; i++)
		if (mdev->ports[i] == port)
			mdev->ports[i] = NULL;
	if (--mdev->nports == 0)
		dev_free(mdev);
}

static int port_create(struct mlx5_dev *mdev, uint8_t port_num, bool several)
{
	char name[DVP_DEV_NAME_MAX_LEN];
	struct ibv_port_attr pa;
	struct mlx5_priv *priv;
	struct dvp_port *port;
	int ret;

	ret = mdev->glue->query_port(mdev->ctx, port_num, &pa);
	if (ret != 0) {
		MLX5_LOG(ERR, "%s: query_port %u: %s", mdev->name, port_num, dvp_strerror(ret));
		return dvp_err(ret);
	}
	if (pa.link_layer != IBV_LINK_LAYER_ETHERNET) {
		MLX5_LOG(NOTICE, "%s: port %u is not Ethernet (link layer %u): skipped", mdev->name,
			 port_num, pa.link_layer);
		return 0;
	}
	if (several)
		snprintf(name, sizeof(name), "%.*s_p%u", DVP_DEV_NAME_MAX_LEN - 8, mdev->name,
			 port_num);
	else
		snprintf(name, sizeof(name), "%s", mdev->name);
	port = dvp_port_allocate(name, MLX5_DRIVER_NAME, &mlx5_port_ops, mdev->bus_dev,
				 sizeof(*priv));
	if (port == NULL)
		return -dvp_errno;
	priv = port->priv;
	priv->dev = mdev;
	priv->port = port;
	priv->port_num = port_num;
	pthread_mutex_init(&priv->steer_lock, NULL);
	mlx5_rss_configure(priv);
	ret = mdev->glue->get_port_net(mdev->ctx, port_num, &priv->net);
	if (ret != 0) {
		MLX5_LOG(ERR, "%s: port %u: cannot read its MAC and MTU: %s", mdev->name, port_num,
			 dvp_strerror(ret));
		pthread_mutex_destroy(&priv->steer_lock);
		dvp_port_release(port);
		return dvp_err(ret);
	}
	/* imissed counts from the probe: what the device dropped before is not ours. */
	if (mdev->glue->port_out_of_buffer != NULL &&
	    mdev->glue->port_out_of_buffer(mdev->ctx, port_num, &priv->oob_base) != 0)
		priv->oob_base = 0;
	if (mdev->glue->port_rx_length_errors != NULL &&
	    mdev->glue->port_rx_length_errors(mdev->ctx, port_num, &priv->len_err_base) != 0)
		priv->len_err_base = 0;
	memcpy(port->mac.addr_bytes, priv->net.mac, 6);
	port->mtu = (uint16_t)priv->net.mtu;
	port->numa_node = mdev->bus_dev->numa_node;
	mdev->ports[port_num - 1] = port;
	mdev->nports++;
	return 0;
}

static int mlx5_probe(struct dvp_device *dev)
{
	unsigned int nports, i;
	struct mlx5_dev *mdev;
	int ret;

	mdev = calloc(1, sizeof(*mdev));
	if (mdev == NULL)
		return dvp_err(ENOMEM);
	snprintf(mdev->name, sizeof(mdev->name), "%s", dev->name);
	mdev->bus_dev = dev;
	mdev->glue = dev_glue(dev);
	mdev->is_sw = dev->ib->ibv_dev == NULL;
	ret = mlx5_devargs_parse(dev->devargs, dev->name, &mdev->cfg);
	if (ret < 0)
		goto err_free;
	if (!mdev->is_sw) {
		ret = mlx5_check_prerequisites(dev->name);
		if (ret < 0)
			goto err_free;
	}
	errno = 0;
	mdev->ctx = dev_open(mdev, dev);
	if (mdev->ctx == NULL) {
		ret = -(errno ? errno : ENODEV);
		MLX5_LOG(ERR, "%s: cannot open the device: %s", dev->name, dvp_strerror(-ret));
		goto err_free;
	}
	mdev->alloc_socket = dev->numa_node;
	{
		struct mlx5dv_ctx_allocators a = { queue_mem_alloc, queue_mem_free, mdev };

		ret = mdev->glue->dv_set_context_attr(mdev->ctx, MLX5DV_CTX_ATTR_BUF_ALLOCATORS,
						      &a);
		if (ret != 0)
			MLX5_LOG(WARNING,
				 "%s: queue rings stay in rdma-core's memory, not on the device's "
				 "node: dv_set_context_attr: %s",
				 dev->name, dvp_strerror(ret));
	}
	ret = mdev->glue->query_device_ex(mdev->ctx, NULL, &mdev->attr);
	if (ret != 0) {
		MLX5_LOG(ERR, "%s: query_device_ex: %s", dev->name, dvp_strerror(ret));
		ret = -ret;
		goto err_dev;
	}
	mlx5_caps_query(mdev);
	mlx5_cqe_comp_choose(mdev);
	mdev->pd = mdev->glue->alloc_pd(mdev->ctx);
	if (mdev->pd == NULL) {
		ret = -(errno ? errno : ENOMEM);
		MLX5_LOG(ERR, "%s: alloc_pd: %s", dev->name, dvp_strerror(-ret));
		goto err_dev;
	}
	mlx5_mr_dev_attach(mdev);
	nports = mdev->attr.orig_attr.phys_port_cnt;
	for (i = 1; i <= nports && i <= DVP_IB_MAX_PORTS; i++) {
		ret = port_create(mdev, (uint8_t)i, nports > 1);
		if (ret < 0)
			goto err_ports;
	}
	if (mdev->nports == 0) {
		MLX5_LOG(ERR, "%s: none of its %u port(s) is Ethernet", dev->name, nports);
		ret = dvp_err(ENODEV);
		goto err_ports;
	}
	ret = mlx5_async_create(mdev);
	if (ret < 0)
		goto err_ports;
	dev->driver_data = mdev;
	for (i = 0; i < DVP_IB_MAX_PORTS; i++)
		if (mdev->ports[i] != NULL)
			dvp_port_probing_finish(mdev->ports[i]);
	MLX5_LOG(INFO, "%s: %u port(s) through the %s glue", dev->name, mdev->nports,
		 mdev->glue->name);
	return 0;

err_ports:
	for (i = 0; i < DVP_IB_MAX_PORTS; i++) {
		if (mdev->ports[i] != NULL) {
			pthread_mutex_destroy(&mlx5_priv(mdev->ports[i])->steer_lock);
			dvp_port_release(mdev->ports[i]);
		}
		mdev->ports[i] = NULL;
	}
	mdev->nports = 0;
err_dev:
	/* dev_free takes the rest (MRs, PD, context) in reverse order. */
	mdev->bus_dev = NULL;
	dev_free(mdev);
	return ret < 0 ? ret : dvp_err(EIO);
err_free:
	free(mdev);
	return ret;
}

static int mlx5_remove(struct dvp_device *dev)
{
	struct mlx5_dev *mdev = dev->driver_data;
	struct dvp_port *ports[DVP_IB_MAX_PORTS];
	unsigned int i, n = 0;

	if (mdev == NULL)
		return 0;
	/* Closing the last port frees the device: take the list first. */
	for (i = 0; i < DVP_IB_MAX_PORTS; i++)
		if (mdev->ports[i] != NULL)
			ports[n++] = mdev->ports[i];
	for (i = 0; i < n; i++)
		dvp_port_close(ports[i]->port_id);
	return 0;
}

static struct dvp_driver mlx5_driver = {
	.name = MLX5_DRIVER_NAME,
	.bus = DVP_BUS_IB,
	.keys = mlx5_devargs_keys,
	.match = mlx5_match,
	.probe = mlx5_probe,
	.remove = mlx5_remove,
};

DVP_DRIVER_REGISTER(net_mlx5, mlx5_driver)
