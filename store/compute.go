package store

import (
	"sort"

	"nodedesk/app"
)

// Remote computes: bucket computes, keyed by the compute id as given (a
// GNS3 compute id is any string, not always a UUID).

// Compute returns the remote compute with that id, or nil.
func (t *tx) Compute(id string) (*app.Compute, error) {
	return decode[app.Compute](t.bucket(bucketComputes).Get([]byte(id)))
}

// Computes returns every remote compute in the order they were added.
func (t *tx) Computes() ([]*app.Compute, error) {
	var cs []*app.Compute
	err := t.bucket(bucketComputes).ForEach(func(_, v []byte) error {
		c, err := decode[app.Compute](v)
		if c != nil {
			cs = append(cs, c)
		}
		return err
	})
	sort.Slice(cs, func(i, j int) bool { return cs[i].Seq < cs[j].Seq })
	return cs, err
}

// PutCompute creates or replaces a remote compute; a new one gets the next
// sequence number, a changed one keeps its own.
func (t *tx) PutCompute(c *app.Compute) error {
	b := t.bucket(bucketComputes)
	if err := keepSeq(b, []byte(c.ID), &c.Seq, func(o *app.Compute) uint64 { return o.Seq }); err != nil {
		return err
	}
	return put(b, []byte(c.ID), c)
}

// DeleteCompute removes a remote compute.
func (t *tx) DeleteCompute(id string) error {
	return t.bucket(bucketComputes).Delete([]byte(id))
}
