// SPDX-License-Identifier: MIT
// A kind's scene frame by frame without the runner (cd_kinds_view in cd_kinds.h): the same setup
// and the same frame as the kinds' run_point, for pictures.
#include "cd_bodies.h"
#include "cd_bodies_peers.h"
#include "cd_kinds.h"
#include "cd_registry.h"
#include "cd_trace.h"
#include "kind_bodies.h"
#include "kind_cubes.h"

#include <stdio.h>
#include <string.h>

struct cd_kinds_view {
    cd_scene *scene;  // cubes: the scene; bodies: bodies->scene
    cd_broad *broad;
    cd_cubes_motion motion;  // cubes: frozen ([scene] file), a trace, or the seeded step
    cd_bodies *bodies;       // bodies kind, else NULL
    cd_bodies_narrow *narrow;
};

cd_kinds_view *cd_kinds_view_open(const cd_point *p, const char *results_root, char *err, size_t err_len)
{
    const char *kind = p->cfg->kind->name;
    cd_kinds_view *v = cd_alloc_zero(1, sizeof *v);
    if (strcmp(kind, "cubes") == 0) {
        if (cd_cubes_point_start(p, results_root, &v->scene, &v->broad, &v->motion, err, err_len) == 0) return v;
        cd_scene_destroy(v->scene);
        cd_cubes_motion_end(&v->motion);
    } else if (strcmp(kind, "bodies") == 0) {
        const char *method = cd_point_text(p, "method", "method");
        if (cd_bodies_peer_known(method)) {
            snprintf(err, err_len,
                     "method %s is a peer (FCL's manager): it has no broad phase to draw; pick a point of "
                     "a cdlab method",
                     method);
        } else {
            cd_bodies_point pt;
            cd_bodies_point_setup(p, &pt);
            if (pt.plan_refused[0])
                snprintf(err, err_len, "%s", pt.plan_refused);
            else
                v->bodies = cd_bodies_create(&pt.params, err, err_len);
            if (v->bodies) {
                const cd_broad_method *m = cd_registry_find(method);
                CD_ASSERT(m);  // the config check accepted only registered methods and peers
                cd_params bp = cd_point_params(p, "method", "method", m->params, m->param_count);
                v->scene = v->bodies->scene;
                v->broad = cd_broad_create(m, &bp, (int)cd_point_num(p, "method", "threads"), v->scene);
                v->narrow = cd_bodies_narrow_create(v->bodies, pt.mode);
                cd_bodies_narrow_set_witness(v->narrow, pt.witness);
                cd_bodies_narrow_attach(v->narrow, v->broad);
                cd_bodies_deform(v->bodies);  // the first frame's shapes, as the kind does
                return v;
            }
        }
    } else {
        snprintf(err, err_len, "kind %s: expected a config of kind cubes or bodies", kind);
    }
    cd_free(v);
    return NULL;
}

int cd_kinds_view_frame(cd_kinds_view *v, int move, cd_pair_list *out, char *why, size_t len)
{
    cd_broad_stats st;
    char step_why[4400];
    // A trace that ends keeps its last frame (cdlab snapshot checks --frame against its length).
    if (move && v->bodies)
        cd_scene_step(v->scene);
    else if (move && cd_cubes_step(&v->motion, v->scene, 1, step_why, sizeof step_why))
        v->motion.frozen = 1;
    if (move && v->bodies) cd_bodies_deform(v->bodies);
    if (!out) return 0;
    cd_broad_frame(v->broad, v->scene, out, &st, NULL);
    return cd_kinds_bad_candidates(v->broad, v->scene, cd_kinds_view_noun(v), why, len);
}

const cd_scene *cd_kinds_view_scene(const cd_kinds_view *v) { return v->scene; }

uint64_t cd_kinds_view_frames(const cd_kinds_view *v)
{
    return v->motion.replay ? cd_trace_replay_frames(v->motion.replay) : 0;
}

const cd_broad *cd_kinds_view_broad(const cd_kinds_view *v) { return v->broad; }

const char *cd_kinds_view_noun(const cd_kinds_view *v) { return v->bodies ? "bodies" : "cubes"; }

void cd_kinds_view_close(cd_kinds_view *v)
{
    if (!v) return;
    cd_broad_destroy(v->broad);
    cd_bodies_narrow_destroy(v->narrow);
    if (v->bodies)
        cd_bodies_destroy(v->bodies);
    else
        cd_scene_destroy(v->scene);
    cd_cubes_motion_end(&v->motion);
    cd_free(v);
}
