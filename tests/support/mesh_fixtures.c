#include "mesh_fixtures.h"

#include <stdlib.h>
#include <string.h>

#include "core/io.h"

void am_test_worked_example_skin(am_mesh_skin *s)
{
    memset(s, 0, sizeof *s);
    s->joint_count = 2;
    s->joint_names = malloc(2 * sizeof(char *));
    s->inverse_bind = malloc(2 * sizeof(am_mat4));
    s->alt_inverse_bind = malloc(2 * sizeof(am_mat4));
    if (!s->joint_names || !s->inverse_bind || !s->alt_inverse_bind)
        abort(); /* a test fixture: no memory means no test */
    s->joint_names[0] = am_strdup("mPelvis");
    s->joint_names[1] = am_strdup("mTorso");
    s->alt_count = 2;
    for (int j = 0; j < 2; j++) {
        s->inverse_bind[j] = am_mat4_identity();
        s->alt_inverse_bind[j] = am_mat4_identity();
    }
    s->inverse_bind[0].m[14] = (double)-1.067f;
    s->inverse_bind[1].m[14] = (double)-1.167f;
    s->alt_inverse_bind[0].m[14] = (double)1.067f;
    s->alt_inverse_bind[1].m[14] = (double)0.100f;
    s->bind_shape = am_mat4_identity();
}
