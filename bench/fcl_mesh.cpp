// SPDX-License-Identifier: MIT
// FCL 0.7 BVHModel<OBB> / BVHModel<OBBRSS> behind the C interface of fcl_mesh.h.
#include "fcl_mesh.h"

#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/OBB.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>

#include <memory>
#include <vector>

struct cd_fcl_mesh {
    std::shared_ptr<fcl::CollisionGeometryd> geom;
    std::unique_ptr<fcl::CollisionObjectd> obj;
};

template <typename BV>
static std::shared_ptr<fcl::CollisionGeometryd> build(const double *xyz, uint32_t nverts, const uint32_t *tris,
                                                      uint32_t ntris)
{
    std::vector<fcl::Vector3d> pts(nverts);
    for (uint32_t i = 0; i < nverts; ++i) pts[i] = fcl::Vector3d(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
    std::vector<fcl::Triangle> tri(ntris);
    for (uint32_t i = 0; i < ntris; ++i) tri[i] = fcl::Triangle(tris[3 * i], tris[3 * i + 1], tris[3 * i + 2]);
    auto model = std::make_shared<fcl::BVHModel<BV>>();
    model->beginModel(static_cast<int>(ntris), static_cast<int>(nverts));
    model->addSubModel(pts, tri);
    model->endModel();
    return model;
}

extern "C" cd_fcl_mesh *cd_fcl_mesh_build(enum cd_fcl_bv bv, const double *xyz, uint32_t nverts,
                                          const uint32_t *tris, uint32_t ntris)
{
    auto *m = new cd_fcl_mesh;
    m->geom = bv == CD_FCL_OBB ? build<fcl::OBBd>(xyz, nverts, tris, ntris) : build<fcl::OBBRSSd>(xyz, nverts, tris, ntris);
    m->obj.reset(new fcl::CollisionObjectd(m->geom));
    return m;
}

extern "C" void cd_fcl_mesh_destroy(cd_fcl_mesh *m) { delete m; }

extern "C" uint64_t cd_fcl_mesh_collide(cd_fcl_mesh *a, cd_fcl_mesh *b, const double q[4], const double t[3],
                                        uint64_t max_pairs)
{
    fcl::Quaterniond qq(q[0], q[1], q[2], q[3]);
    qq.normalize();
    b->obj->setTransform(qq, fcl::Vector3d(t[0], t[1], t[2]));
    a->obj->setTransform(fcl::Transform3d::Identity());
    fcl::CollisionRequestd req(static_cast<std::size_t>(max_pairs), false);
    fcl::CollisionResultd res;
    fcl::collide(a->obj.get(), b->obj.get(), req, res);
    return res.numContacts();
}
